#include "views/communication_view.hpp"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSlider>
#include <QScrollArea>
#include <QSplitter>
#include <QStyle>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include <distlab/config/tensor_parallel_plan.hpp>

#include "bridge/all_reduce_capture.hpp"
#include "bridge/comm_capture.hpp"
#include "views/lane_names.hpp"
#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "charts/line_chart.hpp"
#include "count_text.hpp"
#include "panels/explanations.hpp"
#include "run_palette.hpp"
#include "views/buffer_strips.hpp"
#include "views/chart_feeder.hpp"
#include "views/comm_diagram.hpp"
#include "views/comm_link_table.hpp"
#include "views/comm_text.hpp"

namespace distlab::ui {

namespace {
constexpr int kMaxSamples = 4;
constexpr int kTableEveryFrames = 10;  // the run columns of the link table: three times a second
constexpr double kSmoothing = 0.9;     // per-step timings are noisy: TensorBoard's EMA over them

// A few elements worth watching: with one pack, the first element of each of the first ring
// chunks (they are reduced at different steps); with several packs, the first of each pack.
std::vector<std::int64_t> chooseSamples(const AllReduceCapture& capture) {
    std::vector<std::int64_t> samples;
    const auto packs = capture.packs();
    if (packs.size() == 1) {
        const std::int64_t size = packs[0].size(), n = capture.ranks();
        for (std::int64_t c = 0; c < std::min<std::int64_t>(kMaxSamples, n); ++c)
            samples.push_back(packs[0].begin + c * (size / n) + std::min(c, size % n));
    } else {
        for (std::size_t p = 0; p < std::min<std::size_t>(kMaxSamples, packs.size()); ++p) samples.push_back(packs[p].begin);
    }
    std::sort(samples.begin(), samples.end());
    samples.erase(std::unique(samples.begin(), samples.end()), samples.end());
    return samples;
}

QString parameterOf(const ModelSnapshot* snapshot, std::int64_t element) {
    if (snapshot != nullptr)
        for (const ParameterInfo& info : snapshot->parameters)
            if (element >= info.offset && element < info.offset + info.size)
                return QStringLiteral("%1[%2]").arg(QString::fromStdString(info.name)).arg(element - info.offset);
    return QStringLiteral("g[%1]").arg(element);
}

QToolButton* toolButton(QWidget* parent, QStyle::StandardPixmap icon, const QString& tip) {
    auto* button = new QToolButton(parent);
    button->setIcon(parent->style()->standardIcon(icon));
    button->setToolTip(tip);
    button->setAutoRaise(true);
    return button;
}
}  // namespace

CommunicationView::CommunicationView(SessionController& controller, QWidget* parent) : LiveView(controller, parent) {
    setExplainKey(this, QStringLiteral("view.communication"));
    m_capture = new CommCapture(controller, this);
    m_captureButton = new QPushButton(tr("Capture the next all-reduce"), this);
    m_captureButton->setObjectName(QStringLiteral("captureAllReduceButton"));
    m_captureButton->setToolTip(
        tr("Records the next step's all-reduce of the real gradients, with every replica's "
           "buffer after each of its steps. A paused run takes one step to do it. The first "
           "all-reduce of a run is captured by itself, while its gradients are still large."));
    m_first = toolButton(this, QStyle::SP_MediaSkipBackward, tr("Back to the input"));
    m_back = toolButton(this, QStyle::SP_MediaSeekBackward, tr("Step back"));
    m_playButton = toolButton(this, QStyle::SP_MediaPlay, tr("Play the steps of the all-reduce"));
    m_forward = toolButton(this, QStyle::SP_MediaSeekForward, tr("Step forward"));
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setObjectName(QStringLiteral("commFrameSlider"));
    m_slider->setPageStep(1);
    m_frameTitle = new QLabel(this);
    QFont bold = m_frameTitle->font();
    bold.setBold(true);
    m_frameTitle->setFont(bold);
    m_frameText = new QLabel(this);
    m_frameText->setWordWrap(true);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setStyleSheet(QStringLiteral("QLabel { color: palette(dark); }"));

    m_diagram = new CommDiagram(this);
    m_strips = new BufferStrips(this);
    m_values = new QTableWidget(this);
    m_values->setObjectName(QStringLiteral("commValueTable"));
    m_values->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_valueNames = new QLabel(this);
    m_valueNames->setWordWrap(true);
    // Room for three wrapped lines (the names of four values at 1280 px): a splitter does not ask a
    // wrapped label its height, and would squeeze the strips and the table above it instead.
    m_valueNames->setMinimumHeight(3 * m_valueNames->fontMetrics().lineSpacing() + 4);
    m_valueNames->setStyleSheet(QStringLiteral("QLabel { color: palette(dark); }"));
    m_values->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_relative = new QCheckBox(tr("Relative to the largest"), this);
    m_relative->setObjectName(QStringLiteral("commRelativeValues"));
    m_relative->setChecked(true);
    m_relative->setToolTip(
        tr("Show each value as a fraction of the largest gradient element any replica put in "
           "(late in a run gradients are tiny, 1e-7 and less); the exact value is in each cell's tooltip."));
    connect(m_relative, &QCheckBox::toggled, this, [this] { fillValues(); });
    m_values->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_links = new CommLinkTable(this);
    m_bandwidth = new LineChart(this);
    m_bandwidth->setTitle(tr("Bus bandwidth per step"));
    m_bandwidth->setEmptyText(
        tr("Train on 2 or more devices: busbw = bytes / time × 2(N−1)/N of every step's "
           "all-reduce appears here."));
    m_share = new LineChart(this);
    m_share->setTitle(tr("Time spent communicating"));
    m_share->setEmptyText(
        tr("Train on 2 or more devices: the part of each step the replicas spend in the "
           "all-reduce appears here."));

    auto* controls = new QHBoxLayout();
    controls->addWidget(m_captureButton);
    controls->addSpacing(12);
    for (QToolButton* button : {m_first, m_back, m_playButton, m_forward}) controls->addWidget(button);
    controls->addWidget(m_slider, 1);
    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_strips, 1);
    rightLayout->addWidget(m_relative);
    rightLayout->addWidget(m_values);
    rightLayout->addWidget(m_valueNames);
    auto* stepThrough = new QSplitter(Qt::Horizontal, this);
    m_stepThrough = stepThrough;
    stepThrough->addWidget(m_diagram);
    stepThrough->addWidget(right);
    stepThrough->setStretchFactor(0, 2);
    stepThrough->setStretchFactor(1, 3);
    // The tables beside the two charts in a splitter: the tables keep the width their columns need
    // (they scroll sideways below it), the charts share the rest.
    auto* chartPair = new QWidget(this);
    auto* chartPairLayout = new QHBoxLayout(chartPair);
    chartPairLayout->setContentsMargins(0, 0, 0, 0);
    chartPairLayout->addWidget(m_bandwidth, 1);
    chartPairLayout->addWidget(m_share, 1);
    auto* charts = new QSplitter(Qt::Horizontal, this);
    charts->setObjectName(QStringLiteral("commTablesAndCharts"));
    charts->addWidget(m_links);
    charts->addWidget(chartPair);
    charts->setChildrenCollapsible(false);
    charts->setStretchFactor(0, 0);
    charts->setStretchFactor(1, 1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(stepThrough);
    split->addWidget(charts);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({600, 400});           // proportions: the step-through gets the larger part
    split->setChildrenCollapsible(false);  // neither part below what it needs: the scroll area scrolls instead
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_frameTitle);
    layout->addWidget(m_frameText);
    layout->addWidget(m_summary);
    // Below the height every part needs (1280×800), the parts scroll instead of squeezing the
    // tables to a row or two (tests/ui/test_layout.cpp).
    auto* splitArea = new QScrollArea(this);
    splitArea->setObjectName(QStringLiteral("commScrollArea"));
    splitArea->setWidget(split);
    splitArea->setWidgetResizable(true);
    splitArea->setFrameShape(QFrame::NoFrame);
    splitArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(splitArea, 1);

    m_playTimer.setInterval(kFrameMs);
    connect(&m_playTimer, &QTimer::timeout, this, [this] {
        if (m_frame + 1 >= capture().frameCount())
            pause();
        else
            setFrame(m_frame + 1);
    });
    connect(m_captureButton, &QPushButton::clicked, this, [this] { captureNext(); });
    connect(m_first, &QToolButton::clicked, this, [this] { setFrame(0); });
    connect(m_back, &QToolButton::clicked, this, [this] { stepBack(); });
    connect(m_forward, &QToolButton::clicked, this, [this] { stepForward(); });
    connect(m_playButton, &QToolButton::clicked, this, [this] { playing() ? pause() : play(); });
    connect(m_slider, &QSlider::valueChanged, this, [this](int value) { setFrame(value); });
    connect(m_capture, &CommCapture::captured, this, &CommunicationView::onCaptured);
    connect(m_capture, &CommCapture::changed, this, &CommunicationView::onCaptureChanged);
    // The statistics follow every step, shown or not; the charts redraw only while shown.
    connect(&controller, &SessionController::ticked, this, &CommunicationView::updateStats);
    // As soon as a run has loaded (before its first step), not only at the next frame.
    connect(&controller, &SessionController::stateChanged, this, [this] { armEarlyCapture(); });
    connect(&controller, &SessionController::snapshotChanged, this, [this] { armEarlyCapture(); });
    connect(&controller, &SessionController::runReplaced, this, [this] {
        m_stats.reset();
        m_autoCaptureTried = false;
        // A cluster's all-reduce crosses processes, tensor parallelism's are not the gradient, and a
        // split model's are among a device's copies, not its lanes: the step-through is of gradient
        // all-reduces among every lane on this machine's threads (CommCapture::refusal says so in its place).
        const bool cluster = this->controller().cluster() != nullptr;
        const StrategyKind type = this->controller().config().strategy.type;
        const bool showsStepThrough =
            !cluster && type != StrategyKind::TensorParallel && type != StrategyKind::Pipeline && type != StrategyKind::ModelParallel;
        for (QWidget* control :
             std::initializer_list<QWidget*>{m_captureButton, m_first, m_back, m_playButton, m_forward, m_slider, m_stepThrough})
            control->setVisible(showsStepThrough);
        m_links->setLinksShown(showsStepThrough);
        m_links->setLaneNames(cluster ? laneNames(this->controller().config().strategy, this->controller().history().replicaCount())
                                      : QStringList());
        onCaptureChanged();
    });
    onCaptured();
}

const AllReduceCapture& CommunicationView::capture() const { return m_capture->latest(); }

QTableWidget& CommunicationView::linkTable() const { return m_links->links(); }

QTableWidget& CommunicationView::deviceTable() const { return m_links->devices(); }

bool CommunicationView::captureNext() {
    pause();
    m_playWhenCaptured = false;  // what the person asked for waits at its first frame
    const bool started = m_capture->captureNext();
    onCaptureChanged();
    return started;
}

void CommunicationView::setFrame(int frame) {
    const int clamped = std::clamp(frame, 0, std::max(0, capture().frameCount() - 1));
    if (clamped == m_frame && m_slider->value() == clamped) return;
    m_frame = clamped;
    showFrame();
}

void CommunicationView::play() {
    if (capture().frameCount() < 2) return;
    if (m_frame + 1 >= capture().frameCount()) setFrame(0);
    m_playTimer.start();
    updateControls();
}

void CommunicationView::pause() {
    m_playTimer.stop();
    updateControls();
}

QString CommunicationView::frameText() const { return m_frameTitle->text(); }

void CommunicationView::onCaptured() {
    pause();
    const AllReduceCapture& latest = capture();
    m_samples = chooseSamples(latest);
    m_strips->setMarkers(m_samples);
    m_frame = 0;
    m_largest = 0.0;
    if (latest.hasValues()) {
        for (int r = 0; r < latest.ranks(); ++r)
            for (const float value : latest.buffer(0, r)) m_largest = std::max(m_largest, static_cast<double>(std::abs(value)));
    }
    if (latest.empty()) {
        m_summary->clear();
    } else {
        const std::int64_t bytes = latest.elements() * static_cast<std::int64_t>(sizeof(float));
        std::int64_t total = 0;
        for (const CapturedTransfer& t : latest.allTransfers()) total += t.bytes;
        m_summary->setText(tr("The gradients of training step %1: %2 on %3 devices, %4 elements (%5) in %6, "
                              "%7 each. All links together moved %8 = %9 × the buffer.")
                               .arg(latest.trainingStep())
                               .arg(algorithmTitle(latest))
                               .arg(latest.ranks())
                               .arg(latest.elements())
                               .arg(formatBytes(bytes))
                               .arg(countText(static_cast<qint64>(latest.packs().size()), tr("pack"), tr("packs")))
                               .arg(countText(latest.stepsPerPack(), tr("step"), tr("steps")))
                               .arg(formatBytes(total))
                               .arg(bytes > 0 ? static_cast<double>(total) / static_cast<double>(bytes) : 0.0, 0, 'g', 3));
    }
    showFrame();
    m_framesToTable = 0;
    invalidate();
    if (m_playWhenCaptured && !latest.empty() && isVisible()) play();  // the capture the view made by itself plays at once
    m_playWhenCaptured = false;
}

void CommunicationView::onCaptureChanged() {
    if (controller().cluster() != nullptr) {
        m_frameTitle->setText(tr("The replicas' communication across the cluster's processes"));
        m_frameText->setText(m_capture->refusal());
        updateControls();
        return;
    }
    const QString message = m_capture->message();
    if (!message.isEmpty()) {
        m_frameTitle->setText(m_capture->busy() ? tr("Capturing…") : tr("No all-reduce to show"));
        m_frameText->setText(message);
    } else if (capture().empty()) {
        showFrame();
    }
    updateControls();
}

void CommunicationView::showFrame() {
    const AllReduceCapture& latest = capture();
    m_diagram->setCaptureFrame(&latest, m_frame);
    m_strips->setCaptureFrame(&latest, m_frame);
    if (latest.empty()) {
        m_frameTitle->setText(tr("No all-reduce captured yet"));
        m_frameText->setText(m_capture->message().isEmpty() ? tr("Capture one to step through how the replicas' gradients are summed.")
                                                            : m_capture->message());
    } else {
        m_frameTitle->setText(frameTitle(latest, m_frame));
        m_frameText->setText(describeFrame(latest, m_frame));
    }
    fillValues();
    updateControls();
}

void CommunicationView::fillValues() {
    const AllReduceCapture& latest = capture();
    const int ranks = latest.ranks();
    m_values->setVisible(!latest.empty());
    m_valueNames->setVisible(!latest.empty());
    if (latest.empty()) return;
    m_values->setColumnCount(ranks + 1);
    QStringList columns;
    for (int r = 0; r < ranks; ++r) columns.append(tr("cpu:%1").arg(r));
    columns.append(tr("sum of the inputs"));
    m_values->setHorizontalHeaderLabels(columns);
    m_values->setRowCount(static_cast<int>(m_samples.size()));
    const auto snapshot = controller().snapshot();
    QStringList names;
    for (int row = 0; row < static_cast<int>(m_samples.size()); ++row) {
        const std::int64_t element = m_samples[static_cast<std::size_t>(row)];
        const QString letter = QString(QChar(u'a' + static_cast<char16_t>(row)));
        const QString parameter = parameterOf(snapshot.get(), element);
        names.append(QStringLiteral("%1 = %2").arg(letter, parameter));
        auto* header = new QTableWidgetItem(letter);
        header->setToolTip(tr("Element %1 of the gradient buffer: %2").arg(element).arg(parameter));
        m_values->setVerticalHeaderItem(row, header);
        double sum = 0.0;
        for (int r = 0; r <= ranks; ++r) {
            auto* item = new QTableWidgetItem();
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (r < ranks) {
                const float value = latest.value(m_frame, r, element);
                sum += latest.value(0, r, element);
                const int count = latest.contributions(m_frame, r, element);
                const QColor fill = BufferStrips::contributionColor(count, ranks);
                item->setText(latest.hasValues() ? valueText(value) : tr("%1/%2").arg(count).arg(ranks));
                item->setBackground(fill);
                item->setForeground(fill.lightness() < 140 ? QColor(Qt::white) : QColor(Qt::black));
                item->setToolTip(tr("cpu:%1 holds %2 of the %3 replicas' contributions here: %4")
                                     .arg(r)
                                     .arg(count)
                                     .arg(ranks)
                                     .arg(QString::number(value, 'g', 6)));
            } else {
                item->setText(latest.hasValues() ? valueText(sum) : QString());
                item->setToolTip(tr("What every replica holds once the all-reduce is done: %1").arg(QString::number(sum, 'g', 6)));
            }
            m_values->setItem(row, r, item);
        }
    }
    QString scale;
    if (relativeValues()) scale = tr(", as fractions of the largest input element, %1").arg(QString::number(m_largest, 'g', 3));
    m_valueNames->setText(tr("Values of %1 (marked above the strips)%2.").arg(names.join(QStringLiteral(" · ")), scale));
    // As tall as its rows (a few), so none hides behind a scroll bar.
    m_values->setFixedHeight(m_values->horizontalHeader()->sizeHint().height() + m_values->verticalHeader()->length() +
                             2 * m_values->frameWidth() + m_values->horizontalScrollBar()->sizeHint().height());
}

void CommunicationView::armEarlyCapture() {
    // The first all-reduce of a multi-device run is captured by itself, shown or not: early in a
    // run the gradients are large (late ones are near 1e-7). A run not started yet is armed, so
    // its step 1 is caught when Play is pressed (nothing is stepped for it); a running one is
    // caught at its next step. A shown view plays the capture at once.
    if (m_autoCaptureTried || !capture().empty() || m_capture->busy() || controller().isLoading() || controller().snapshot() == nullptr)
        return;
    const StrategyConfig& strategy = controller().config().strategy;
    if (strategy.type == StrategyKind::ParameterServer || strategy.replicaCount() < 2 ||
        strategy.replicaCount() > AllReduceCapture::kMaxRanks)
        return;
    const SessionState state = controller().state();
    const bool fresh = state == SessionState::Paused && controller().stepsDone() == 0;
    if (state != SessionState::Running && !fresh) return;
    m_autoCaptureTried = true;
    m_playWhenCaptured = true;  // before: the capture may complete within captureNext()
    if (!m_capture->captureNext(/*stepIfPaused=*/false)) m_playWhenCaptured = false;
}

bool CommunicationView::relativeValues() const { return m_relative->isChecked() && m_largest > 0.0; }

QString CommunicationView::valueText(double value) const {
    if (!relativeValues()) return QString::number(value, 'g', 5);
    return QString::number(value / m_largest, 'f', 3);
}

void CommunicationView::updateControls() {
    const int frames = capture().frameCount();
    m_captureButton->setEnabled(!m_capture->busy());
    m_first->setEnabled(frames > 1 && m_frame > 0);
    m_back->setEnabled(frames > 1 && m_frame > 0);
    m_forward->setEnabled(frames > 1 && m_frame + 1 < frames);
    m_playButton->setEnabled(frames > 1);
    m_playButton->setIcon(style()->standardIcon(playing() ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    m_playButton->setToolTip(playing() ? tr("Pause") : tr("Play the steps of the all-reduce"));
    m_slider->setEnabled(frames > 1);
    const QSignalBlocker blocker(m_slider);
    m_slider->setRange(0, std::max(0, frames - 1));
    m_slider->setValue(m_frame);
}

void CommunicationView::updateStats() {
    // What a step all-reduces: the gradient, or under tensor parallelism the layers' partial
    // outputs and input gradients (the batch's rows of their widths; CommCapture refuses to step
    // through those, which are not the gradient).
    const RunConfig& config = controller().config();
    std::int64_t reducedValues = controller().parameterCount();
    if (config.strategy.type == StrategyKind::TensorParallel) {
        const auto plan = planTensorParallel(config.model, 0, config.strategy.tensorParallel);
        reducedValues = plan ? tensorParallelReducedValues(*plan, config.data.globalBatchSize) : 0;
    }
    m_stats.update(controller().history(), reducedValues * static_cast<std::int64_t>(sizeof(float)));
    armEarlyCapture();
}

bool CommunicationView::refresh() {
    updateStats();
    const int replicas = controller().history().replicaCount();
    // The tables: a few times a second while training runs, at once otherwise (the final numbers).
    const bool tableDue = --m_framesToTable <= 0 || controller().state() != SessionState::Running;
    if (invalid() || (tableDue && m_stats.version() != m_tableStats)) {
        m_framesToTable = kTableEveryFrames;
        m_tableStats = m_stats.version();
        m_links->setData(capture(), m_stats, replicas);
    }
    // The two charts take turns while training runs (one per frame keeps a frame cheap); both catch
    // up at once otherwise. The raw per-step values are faint, a smoothed curve over them.
    const std::uint64_t version = m_stats.version();
    if (invalid()) m_drawnBandwidth = m_drawnShare = version - 1;
    const bool both = controller().state() != SessionState::Running;
    const bool bandwidthDue = m_drawnBandwidth != version && (both || m_drawnShare == version || m_bandwidthTurn);
    const bool shareDue = m_drawnShare != version && (both || !bandwidthDue);
    if (!bandwidthDue && !shareDue) return false;
    m_bandwidthTurn = !bandwidthDue;
    const QColor communication = phaseColor(Phase::Communication);
    QColor faint = communication;
    faint.setAlpha(70);
    qsizetype drawn = 0;
    if (bandwidthDue) {
        m_drawnBandwidth = version;
        m_bandwidth->setAxisTitles(tr("step"), tr("GB/s"));
        drawn += feedChart(
            *m_bandwidth,
            {{&m_stats.busBandwidth(), tr("bus bandwidth, raw"), faint, 1.0, Qt::SolidLine, 0.0, false},
             {&m_stats.busBandwidth(), tr("bus bandwidth"), communication, 2.0, Qt::SolidLine, kSmoothing},
             {&m_stats.algorithmBandwidth(), tr("algorithm bandwidth"), palette().text().color(), 1.2, Qt::SolidLine, kSmoothing}},
            XAxis::Step);
    }
    if (shareDue) {
        m_drawnShare = version;
        m_share->setAxisTitles(tr("step"), tr("% of the step"));
        drawn += feedChart(*m_share,
                           {{&m_stats.communicationShare(), tr("all-reduce, raw"), faint, 1.0, Qt::SolidLine, 0.0, false},
                            {&m_stats.communicationShare(), tr("all-reduce"), communication, 2.0, Qt::SolidLine, kSmoothing}},
                           XAxis::Step);
    }
    return drawn > 0;
}

}  // namespace distlab::ui
