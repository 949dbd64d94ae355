#pragma once
// Decision boundary for 2-D data: the model's output over the plane as a heat map (from the
// session's snapshot grid), with the training points (filled) and test points (ringed) on top,
// as TensorFlow Playground draws it. Refreshed whenever a new snapshot arrives.
#include <QElapsedTimer>
#include <QImage>

#include <cstdint>
#include <memory>

#include <distlab/telemetry/model_snapshot.hpp>

#include "views/live_view.hpp"

namespace distlab::ui {

class BoundaryView : public LiveView {
    Q_OBJECT

public:
    explicit BoundaryView(SessionController& controller, QWidget* parent = nullptr);

    /// The step of the snapshot drawn, or -1 when none.
    std::int64_t drawnStep() const { return m_drawnStep; }
    bool hasHeatMap() const { return !m_image.isNull(); }

protected:
    bool refresh() override;
    void paintEvent(QPaintEvent* event) override;

private:
    QRectF plotRect() const;
    QPointF toScreen(const QRectF& plot, const QPointF& point) const;
    QColor colorOf(double value) const;
    void rebuildImage(const ModelSnapshot& snapshot);
    /// The heat map at the plot's size, and the data points as a transparent layer: both drawn
    /// once per change, then copied (a scaled or smooth draw per paint would hand its fill to the
    /// raster engine's worker threads, and two thousand antialiased dots take milliseconds).
    void prepareLayers(const QRectF& plot);

    /// What the points layer was drawn for; it is redrawn when any of this changes.
    struct LayerKey {
        QSize size;
        double minX = 0.0, maxX = 0.0, minY = 0.0, maxY = 0.0;
        double valueLow = 0.0, valueHigh = 0.0;
        QRgb base = 0;  // the palette's base colour (the dots' outline and regression colours)
        bool operator==(const LayerKey&) const = default;
    };

    std::shared_ptr<const ModelSnapshot> m_snapshot;
    bool m_pointsDirty = true;
    QImage m_image;
    QImage m_scaledImage;  // m_image at the plot's size (null: to be made)
    QImage m_pointsLayer;
    LayerKey m_layerKey;
    bool m_layerDirty = true;
    QElapsedTimer m_rebuilt;  // since the last heat map was made
    double m_valueLow = 0.0;
    double m_valueHigh = 1.0;
    std::int64_t m_drawnStep = -1;
};

}  // namespace distlab::ui
