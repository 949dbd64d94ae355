#pragma once
// Device timeline: a Gantt chart of the last RunHistory::kTimelineSteps steps, one lane per
// logical device; scroll with the wheel or the scroll bar, zoom with Ctrl+wheel or the buttons;
// "Follow" keeps the newest step in view.
#include <cstdint>

#include "views/live_view.hpp"
#include "views/timeline_source.hpp"

class QCheckBox;
class QLabel;
class QScrollBar;

namespace distlab::ui {

class TimelineCanvas;

class TimelineView : public LiveView {
    Q_OBJECT

public:
    explicit TimelineView(SessionController& controller, QWidget* parent = nullptr);

    TimelineCanvas& canvas() const { return *m_canvas; }
    /// Zooms by `factor` (< 1 zooms in) around the window's middle.
    void zoom(double factor);
    /// Shows every step held.
    void fitAll();
    bool following() const;
    /// The line above the lanes that says what the time axis counts from.
    QLabel& originLabel() const { return *m_origin; }

protected:
    bool refresh() override;

private:
    void zoomAround(double factor, std::int64_t anchorNs);
    void scrollBy(std::int64_t deltaNs);
    void applyWindow(std::int64_t startNs, std::int64_t spanNs, bool fromUser);
    void syncScrollBar();

    HistoryTimelineSource m_source;
    TimelineCanvas* m_canvas;
    QScrollBar* m_scroll;
    QCheckBox* m_follow;
    QLabel* m_origin;
    std::uint64_t m_drawnVersion = 0;
    std::int64_t m_spanNs = 0;
    bool m_userZoomed = false;  // until the user zooms, the window shows about a dozen steps
    bool m_syncing = false;
};

}  // namespace distlab::ui
