#pragma once
// The "Smoothing" slider every curve view shares (Learning, a study's charts): TensorBoard's EMA
// weight in [0, 0.99] with its value beside it. The views smooth with DebiasedEma
// (bridge/series_renderer.hpp); this only chooses the weight. GUI thread.
#include <QWidget>

class QLabel;
class QSlider;

namespace distlab::ui {

class SmoothingControl : public QWidget {
    Q_OBJECT

public:
    /// Starts at `weight` (e.g. 0.6, TensorBoard's default).
    explicit SmoothingControl(double weight, QWidget* parent = nullptr);

    /// The EMA weight in [0, 0.99]; 0 draws the raw values.
    double weight() const;
    /// Rounds to the slider's hundredths; emits weightChanged when that moves it.
    void setWeight(double weight);
    QSlider& slider() const { return *m_slider; }

signals:
    void weightChanged(double weight);

private:
    QSlider* m_slider;
    QLabel* m_value;
};

}  // namespace distlab::ui
