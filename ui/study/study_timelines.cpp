#include "study/study_timelines.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

#include <distlab/study/study_curves.hpp>

#include "run_palette.hpp"
#include "study/study_charts.hpp"
#include "study/study_controller.hpp"
#include "views/lane_names.hpp"
#include "views/timeline_canvas.hpp"
#include "views/timeline_source.hpp"

namespace distlab::ui {

namespace {
constexpr int kDefaultUpdatesShown = 4;
constexpr int kKeptUpdates = 32;  // RecentTimelines' default capacity, which the runner keeps
}  // namespace

/// One variant's kept updates, as a timeline canvas reads them. Lane k is replica k; a replica
/// that did not take part in an update (async parameter servers) has no span there.
class StudyTimelineSource final : public TimelineSource {
public:
    void setSteps(std::vector<StudyTimelineStep> steps) { m_steps = std::move(steps); }
    const std::vector<StudyTimelineStep>& steps() const { return m_steps; }
    int stepCount() const override { return static_cast<int>(m_steps.size()); }
    TimelineStep step(int index) const override {
        const StudyTimelineStep& kept = m_steps[static_cast<std::size_t>(index)];
        return {kept.step, kept.startNs, kept.endNs};
    }
    std::optional<TimelineLaneTimes> lane(int index, int lane) const override {
        for (const StudyTimelineLane& kept : m_steps[static_cast<std::size_t>(index)].lanes)
            if (kept.replica == lane) return TimelineLaneTimes{kept.times, kept.bytesSent};
        return std::nullopt;
    }

private:
    std::vector<StudyTimelineStep> m_steps;
};

StudyTimelines::StudyTimelines(StudyController& controller, QWidget* parent) : QWidget(parent), m_controller(controller) {
    setObjectName(QStringLiteral("studyTimelines"));
    m_updates = new QSpinBox(this);
    m_updates->setObjectName(QStringLiteral("studyTimelineUpdates"));
    m_updates->setRange(1, kKeptUpdates);
    m_updates->setValue(kDefaultUpdatesShown);
    m_updates->setSuffix(tr(" updates"));
    m_updates->setToolTip(tr("How many of each variant's latest updates to draw"));
    auto* note = new QLabel(tr("Each variant's latest updates, one lane per device, on one time scale: the same "
                               "length is the same time in every variant. Hover a span for its duration."),
                            this);
    note->setWordWrap(true);
    auto* controls = new QHBoxLayout();
    controls->addWidget(new QLabel(tr("Show the last"), this));
    controls->addWidget(m_updates);
    controls->addSpacing(12);
    controls->addWidget(note, 1);

    auto* rows = new QWidget();
    m_rows = new QVBoxLayout(rows);
    m_rows->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(rows);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(scroll, 1);
    connect(m_updates, &QSpinBox::valueChanged, this, [this] {
        m_drawn = 0;  // redraw with the new window
        refresh();
    });
    connect(&m_controller, &StudyController::updated, this, &StudyTimelines::refresh);
}

StudyTimelines::~StudyTimelines() = default;

void StudyTimelines::setUpdatesShown(int updates) { m_updates->setValue(updates); }

int StudyTimelines::updatesShown() const { return m_updates->value(); }

void StudyTimelines::rebuild() {
    for (QWidget* row : m_rowWidgets) delete row;
    m_rowWidgets.clear();
    m_canvases.clear();
    m_captions.clear();
    m_sources.clear();
    const int variants = m_controller.variantCount();
    for (int v = 0; v < variants; ++v) {
        const StudyVariant& variant = m_controller.study().variants[static_cast<std::size_t>(v)];
        auto* row = new QWidget();
        auto* caption = new QLabel(row);
        caption->setObjectName(QStringLiteral("studyTimelineCaption%1").arg(v));
        QFont bold = caption->font();
        bold.setBold(true);
        caption->setFont(bold);
        QPalette colored = caption->palette();
        colored.setColor(QPalette::WindowText, StudyCharts::variantColor(v));
        caption->setPalette(colored);
        caption->setText(QString::fromStdString(variant.label));
        auto source = std::make_unique<StudyTimelineSource>();
        auto* canvas = new TimelineCanvas(row);
        canvas->setObjectName(QStringLiteral("studyTimeline%1").arg(v));
        canvas->setSource(source.get());
        QStringList lanes;
        const int replicas = static_cast<int>(variant.config.strategy.replicaCount());
        for (int r = 0; r < replicas; ++r) lanes.append(laneDeviceLabel(variant.config.strategy, r));
        canvas->setLaneNames(lanes);
        // Lanes keep the run view's readable height; the scroll area takes the rest.
        canvas->setMinimumHeight(44 + 26 * std::max(1, replicas));
        auto* rowLayout = new QVBoxLayout(row);
        rowLayout->setContentsMargins(0, 4, 0, 4);
        rowLayout->addWidget(caption);
        rowLayout->addWidget(canvas);
        m_rows->addWidget(row);
        m_rowWidgets.push_back(row);
        m_canvases.push_back(canvas);
        m_captions.push_back(caption);
        m_sources.push_back(std::move(source));
    }
    m_rows->addStretch(1);
    m_builtFor = m_controller.studyGeneration();
}

void StudyTimelines::refresh() {
    if (m_builtFor != m_controller.studyGeneration()) {
        rebuild();
        m_drawn = 0;
    }
    if (m_drawn != 0 && m_drawn == m_controller.version()) return;
    m_drawn = m_controller.version();
    const auto shown = static_cast<std::size_t>(m_updates->value());
    // Each variant's window starts at the first of its shown updates; every window spans the longest.
    std::vector<std::int64_t> starts(m_sources.size(), 0);
    m_spanNs = 0;
    for (std::size_t v = 0; v < m_sources.size(); ++v) {
        std::vector<StudyTimelineStep> steps = m_controller.curves(static_cast<int>(v)).timelines.ordered();
        if (steps.size() > shown) steps.erase(steps.begin(), steps.end() - static_cast<std::ptrdiff_t>(shown));
        const QString label = QString::fromStdString(m_controller.study().variants[v].label);
        if (steps.empty()) {
            m_captions[v]->setText(label);
        } else {
            const std::int64_t span = steps.back().endNs - steps.front().startNs;
            starts[v] = steps.front().startNs;
            m_spanNs = std::max(m_spanNs, span);
            m_captions[v]->setText(tr("%1 — updates %2 to %3, %4 ms per update (wall time)")
                                       .arg(label, QLocale().toString(steps.front().step), QLocale().toString(steps.back().step),
                                            QString::number(static_cast<double>(span) * 1e-6 / static_cast<double>(steps.size()), 'f', 3)));
        }
        m_sources[v]->setSteps(std::move(steps));
    }
    // A little room after the longest, so its last span is not cut by the edge.
    const std::int64_t window = std::max<std::int64_t>(m_spanNs + m_spanNs / 50, 10'000);
    for (std::size_t v = 0; v < m_canvases.size(); ++v) m_canvases[v]->setWindow(starts[v], window);
}

}  // namespace distlab::ui
