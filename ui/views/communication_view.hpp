#pragma once
// The communication view: a step-through of one all-reduce of the run's real gradient buffers at
// the algorithm's own granularity (the devices and the chunks moving between them; every
// replica's buffer as chunks coloured by its partial sums; a few elements' values), with play /
// pause / step controls of its own and a "Capture the next all-reduce" button; below, each link's
// bytes and time, the bus bandwidth of every step and the share of each step spent communicating.
// A running multi-device run is captured once automatically when the view is first shown.
#include <QTimer>

#include <cstdint>
#include <vector>

#include "bridge/comm_stats.hpp"
#include "views/live_view.hpp"

class QCheckBox;
class QLabel;
class QPushButton;
class QSlider;
class QTableWidget;
class QToolButton;

namespace distlab::ui {

class AllReduceCapture;
class BufferStrips;
class CommCapture;
class CommDiagram;
class CommLinkTable;
class LineChart;

class CommunicationView : public LiveView {
    Q_OBJECT

public:
    /// Time each frame stays on screen while playing.
    static constexpr int kFrameMs = 900;

    explicit CommunicationView(SessionController& controller, QWidget* parent = nullptr);

    /// Captures the current run's next all-reduce (what the button does); false, with the reason
    /// on screen, when the run has none.
    bool captureNext();
    CommCapture& capturer() const { return *m_capture; }
    /// The capture shown (empty before the first).
    const AllReduceCapture& capture() const;

    /// The frame shown: 0 is the input, k the state after step k of capture().stepCount().
    int frame() const { return m_frame; }
    void setFrame(int frame);
    void stepForward() { setFrame(m_frame + 1); }
    void stepBack() { setFrame(m_frame - 1); }
    /// Plays the frames one after another (from the start when at the end); pause() stops.
    void play();
    void pause();
    bool playing() const { return m_playTimer.isActive(); }
    /// The title of the frame shown ("Step 3 of 6 · reduce-scatter").
    QString frameText() const;
    /// The elements whose values the value table lists.
    const std::vector<std::int64_t>& sampleElements() const { return m_samples; }

    const CommStats& stats() const { return m_stats; }
    CommDiagram& diagram() const { return *m_diagram; }
    BufferStrips& strips() const { return *m_strips; }
    QTableWidget& valueTable() const { return *m_values; }
    /// The links the capture used (one row each) and the devices' totals over the run.
    QTableWidget& linkTable() const;
    QTableWidget& deviceTable() const;
    LineChart& bandwidthChart() const { return *m_bandwidth; }
    LineChart& shareChart() const { return *m_share; }
    QPushButton& captureButton() const { return *m_captureButton; }
    /// The value table shows values relative to the largest input element (on by default).
    QCheckBox& relativeBox() const { return *m_relative; }
    /// The largest |value| any replica put into the captured all-reduce (0: none captured).
    double largestInput() const { return m_largest; }

protected:
    bool refresh() override;

private:
    void onCaptured();
    void onCaptureChanged();
    void showFrame();
    void fillValues();
    void updateStats();
    void updateControls();
    bool relativeValues() const;
    /// Captures the run's first all-reduce by itself (arms it on a run not started yet).
    void armEarlyCapture();
    QString valueText(double value) const;

    CommCapture* m_capture;
    CommStats m_stats;
    QTimer m_playTimer;
    int m_frame = 0;
    std::vector<std::int64_t> m_samples;
    QPushButton* m_captureButton;
    QWidget* m_stepThrough;  // the diagram and the buffers: hidden for a cluster run
    QToolButton* m_first;
    QToolButton* m_back;
    QToolButton* m_playButton;
    QToolButton* m_forward;
    QSlider* m_slider;
    QLabel* m_frameTitle;
    QLabel* m_frameText;
    QLabel* m_summary;
    QLabel* m_valueNames;
    CommDiagram* m_diagram;
    BufferStrips* m_strips;
    QTableWidget* m_values;
    QCheckBox* m_relative;
    double m_largest = 0.0;
    CommLinkTable* m_links;
    LineChart* m_bandwidth;
    LineChart* m_share;
    std::uint64_t m_drawnBandwidth = 0;
    std::uint64_t m_drawnShare = 0;
    bool m_bandwidthTurn = true;
    std::uint64_t m_tableStats = 0;
    int m_framesToTable = 0;
    bool m_autoCaptureTried = false;
    bool m_playWhenCaptured = false;
};

}  // namespace distlab::ui
