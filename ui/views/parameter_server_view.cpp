#include "views/parameter_server_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "bridge/cluster_run.hpp"
#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "count_text.hpp"
#include "panels/explanations.hpp"
#include "views/staleness_histogram.hpp"
#include "views/topology_canvas.hpp"
#include "views/worker_controls.hpp"

namespace distlab::ui {

namespace {
constexpr qint64 kRateWindowMs = 1000;

QLabel* wrappedLabel(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    label->setWordWrap(true);
    label->setTextFormat(Qt::RichText);
    return label;
}
}  // namespace

ParameterServerView::ParameterServerView(SessionController& controller, QWidget* parent) : LiveView(controller, parent) {
    setExplainKey(this, QStringLiteral("view.parameter_servers"));
    m_pages = new QStackedWidget(this);
    m_pages->addWidget(buildIntroPage());
    m_pages->addWidget(buildRunPage());
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_pages);
    connect(&controller, &SessionController::runReplaced, this, [this] {
        m_topologyReady = false;
        m_lostServer = -1;
        m_lostAt = -1;
        m_drawnUpdates = -1;
        m_resumeMessage.clear();  // said of the run replaced; a resume of this one says so again when done
        m_status.clear();
        m_histogram->clear();
        // A cluster's servers and workers are processes: the view shows them, and the app's
        // checkpoints and controls, which act on threads of this process, are not offered.
        const bool session = this->controller().cluster() == nullptr;
        for (QWidget* control : std::initializer_list<QWidget*>{m_save, m_resume, m_checkpointText, m_serverRow, m_workers})
            control->setVisible(session);
        updateCheckpointText();
    });
    connect(&controller, &SessionController::checkpointChanged, this, &ParameterServerView::updateCheckpointText);
    connect(&controller, &SessionController::resumeFinished, this, [this](bool ok, const QString& message) {
        m_resumeMessage = ok ? tr("%1 Press Play to go on.").arg(message) : message;
        m_topologyReady = false;  // read the workers again: they now count from the checkpoint's figures
        updateCheckpointText();
    });
    connect(&controller, &SessionController::stateChanged, this, &ParameterServerView::onStateChanged);
    connect(&controller, &SessionController::liveConfigChanged, this, [this] {
        const QSignalBlocker blocker(m_mode);
        m_mode->setCurrentIndex(this->controller().config().strategy.mode == ParameterServerMode::Sync ? 1 : 0);
    });
}

QWidget* ParameterServerView::buildIntroPage() {
    auto* page = new QWidget(this);
    m_introText = wrappedLabel(QString(), page);
    m_introText->setObjectName(QStringLiteral("parameterServerIntro"));
    m_introText->setMaximumWidth(640);
    auto* use = new QPushButton(tr("Train this model with parameter servers (4 workers, 2 servers)"), page);
    use->setObjectName(QStringLiteral("useParameterServersButton"));
    auto* compare = new QPushButton(tr("Compare mirrored, async and sync…"), page);
    connect(use, &QPushButton::clicked, this, &ParameterServerView::useParameterServersRequested);
    connect(compare, &QPushButton::clicked, this, &ParameterServerView::compareRequested);
    // The description in a row of its own between stretches, not with an alignment flag: an aligned
    // word-wrapped label gets its one-line height and is cut mid-sentence in a narrow window.
    auto* introRow = new QHBoxLayout();
    introRow->addStretch(1);
    introRow->addWidget(m_introText, 100);
    introRow->addStretch(1);
    auto* layout = new QVBoxLayout(page);
    layout->addStretch(1);
    layout->addLayout(introRow);
    layout->addWidget(use, 0, Qt::AlignHCenter);
    layout->addWidget(compare, 0, Qt::AlignHCenter);
    layout->addStretch(2);
    return page;
}

QWidget* ParameterServerView::buildRunPage() {
    auto* content = new QWidget();
    m_mode = new QComboBox(content);
    m_mode->setObjectName(QStringLiteral("liveModeBox"));
    m_mode->addItem(tr("Asynchronous"), static_cast<int>(ParameterServerMode::Async));
    m_mode->addItem(tr("Synchronous"), static_cast<int>(ParameterServerMode::Sync));
    setExplainKey(m_mode, QStringLiteral("strategy.mode.async"));
    m_summary = new QLabel(content);
    m_summary->setObjectName(QStringLiteral("parameterServerSummary"));
    m_summary->setWordWrap(true);
    auto* save = new QPushButton(tr("Save checkpoint"), content);
    m_save = save;
    save->setToolTip(
        tr("Keep the run's state (weights, optimizer, step, data position) to resume from later. "
           "The app also keeps one by itself every few seconds while the run trains."));
    m_resume = new QPushButton(tr("Resume from checkpoint"), content);
    m_resume->setObjectName(QStringLiteral("resumeCheckpointButton"));
    m_resume->setToolTip(tr("Start the run again from the last checkpoint (paused), with the workers as they were"));
    m_resume->setEnabled(false);
    auto* compare = new QPushButton(tr("Compare…"), content);
    compare->setToolTip(tr("Train this model mirrored, with async and with sync parameter servers side by side"));
    m_checkpointText = new QLabel(content);
    m_checkpointText->setObjectName(QStringLiteral("checkpointText"));
    m_checkpointText->setWordWrap(true);

    auto* top = new QHBoxLayout();
    top->addWidget(new QLabel(tr("Updates"), content));
    top->addWidget(m_mode);
    top->addWidget(m_summary, 1);
    auto* buttons = new QHBoxLayout();
    buttons->addWidget(save);
    buttons->addWidget(m_resume);
    buttons->addWidget(compare);
    buttons->addWidget(m_checkpointText, 1);

    m_serverRow = new QWidget(content);
    m_serverButtons = new QHBoxLayout(m_serverRow);
    m_serverButtons->setContentsMargins(0, 0, 0, 0);
    m_canvas = new TopologyCanvas(content);
    setExplainKey(m_canvas, QStringLiteral("view.parameter_servers"));
    m_workers = new WorkerControls(content);
    m_histogram = new StalenessHistogram(content);
    setExplainKey(m_histogram, QStringLiteral("view.staleness"));
    m_stalenessText = wrappedLabel(QString(), content);
    m_stalenessText->setObjectName(QStringLiteral("stalenessText"));
    m_stalenessText->setMinimumWidth(160);
    setExplainKey(m_stalenessText, QStringLiteral("view.staleness"));
    auto* staleness = new QHBoxLayout();
    staleness->addWidget(m_histogram, 3);
    staleness->addWidget(m_stalenessText, 2);

    // Says when the run has ended, so controls that no longer act are not taken for broken ones.
    auto* ended = new QLabel(content);
    ended->setObjectName(QStringLiteral("runEndedNote"));
    ended->setWordWrap(true);
    ended->setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #5c4400; padding: 4px; }"));
    ended->hide();

    auto* layout = new QVBoxLayout(content);
    layout->addLayout(top);
    layout->addWidget(ended);
    layout->addLayout(buttons);
    layout->addWidget(m_serverRow);
    layout->addWidget(m_canvas, 3);
    layout->addWidget(m_workers);
    layout->addLayout(staleness, 2);

    connect(m_mode, &QComboBox::currentIndexChanged, this, [this](int index) {
        this->controller().setParameterServerMode(static_cast<ParameterServerMode>(m_mode->itemData(index).toInt()));
    });
    connect(m_workers, &WorkerControls::speedChanged, this,
            [this](int worker, double speed) { this->controller().setWorkerSpeed(worker, speed); });
    // Through the controller, which refuses (and says so) a control that reaches a run already over.
    connect(m_workers, &WorkerControls::pauseToggled, this,
            [this](int worker, bool paused) { this->controller().setWorkerPaused(worker, paused); });
    connect(m_workers, &WorkerControls::killRequested, this, [this](int worker) { this->controller().killWorker(worker); });
    connect(&controller(), &SessionController::liveControlRefused, this, [ended](const QString& message) {
        ended->setText(message);
        ended->show();
    });
    connect(save, &QPushButton::clicked, this, &ParameterServerView::saveCheckpoint);
    connect(m_resume, &QPushButton::clicked, this, &ParameterServerView::resumeCheckpoint);
    connect(compare, &QPushButton::clicked, this, &ParameterServerView::compareRequested);

    auto* area = new QScrollArea(this);
    area->setWidget(content);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    return area;
}

QPushButton* ParameterServerView::loseServerButton(int server) const {
    return m_serverRow->findChild<QPushButton*>(QStringLiteral("loseServerButton%1").arg(server));
}

bool ParameterServerView::showingRun() const { return m_pages->currentIndex() == 1; }

void ParameterServerView::buildTopology() {
    ParameterServerControls* controls = controller().parameterServerControls();
    ClusterRun* cluster = controller().cluster();
    // A cluster's topology comes from its chief's shards, once it has sent them.
    if (controls == nullptr && (cluster == nullptr || cluster->shards().empty())) return;
    const RunConfig& config = controller().config();
    const int servers = controls != nullptr ? controls->serverCount() : static_cast<int>(config.cluster.ps.size());
    const std::vector<ServerShard> shards = controls != nullptr ? shardLayoutOf(controls->placements()).shards : cluster->shards();
    std::vector<TopologyCanvas::Server> boxes(static_cast<std::size_t>(servers));
    for (const ServerShard& shard : shards) {
        if (shard.server < 0 || shard.server >= servers) continue;
        boxes[static_cast<std::size_t>(shard.server)].shards.append(
            shard.rows == 1 ? tr("%1 · 1 row").arg(QString::fromStdString(shard.name))
                            : tr("%1 · %2 rows").arg(QString::fromStdString(shard.name)).arg(shard.rows));
    }
    m_canvas->setServers(std::move(boxes));
    while (QLayoutItem* item = m_serverButtons->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    for (int s = 0; controls != nullptr && s < servers; ++s) {
        auto* lose = new QPushButton(tr("Lose server %1").arg(s), m_serverRow);
        lose->setObjectName(QStringLiteral("loseServerButton%1").arg(s));
        lose->setToolTip(tr("Server %1 fails: the run stops with an error, as a real cluster's would. Reset, or resume "
                            "from the last checkpoint (the app keeps one every few seconds while it trains).")
                             .arg(s));
        m_serverButtons->addWidget(lose, 1, Qt::AlignHCenter);
        connect(lose, &QPushButton::clicked, this, [this, s] {
            if (ParameterServerControls* c = controller().isLive() ? controller().parameterServerControls() : nullptr) {
                c->killParameterServer(s);
                m_lostServer = s;
                m_canvas->setServerLost(s);
            }
        });
    }
    const int workers = controls != nullptr ? controls->workerCount() : static_cast<int>(config.cluster.worker.size());
    m_canvas->setWorkers(std::vector<TopologyCanvas::Worker>(static_cast<std::size_t>(workers)));
    m_workers->setWorkerCount(workers);
    m_status.assign(static_cast<std::size_t>(workers), WorkerStatus{});
    for (int w = 0; w < workers; ++w)
        m_status[static_cast<std::size_t>(w)] = controls != nullptr ? controls->workerStatus(w) : clusterWorkerStatus(w);
    // From the run's own counts: a resumed run starts from its checkpoint's, not from 0.
    m_lastApplied.assign(static_cast<std::size_t>(workers), 0);
    for (int w = 0; w < workers; ++w) m_lastApplied[static_cast<std::size_t>(w)] = m_status[static_cast<std::size_t>(w)].updates;
    m_rateBase = m_lastApplied;
    m_rates.assign(static_cast<std::size_t>(workers), 0.0);
    m_updatesBase = controller().stepsDone();
    m_updateRate = 0.0;
    m_rateClock.start();
    const QSignalBlocker blocker(m_mode);
    const ParameterServerMode mode = controls != nullptr ? controls->mode() : config.strategy.mode;
    m_mode->setCurrentIndex(mode == ParameterServerMode::Sync ? 1 : 0);
    m_mode->setEnabled(controls != nullptr);  // a cluster's mode is its config's
    m_mode->setToolTip(controls != nullptr ? QString() : tr("A cluster's chief runs the mode of its config"));
    m_topologyReady = true;
}

WorkerStatus ParameterServerView::clusterWorkerStatus(int worker) {
    WorkerStatus status;
    const RunConfig& config = controller().config();
    if (static_cast<std::size_t>(worker) < config.strategy.workerSpeed.size())
        status.speed = config.strategy.workerSpeed[static_cast<std::size_t>(worker)];
    status.updates = controller().history().updates().applied(worker);
    status.gradients = status.updates;
    if (ClusterRun* cluster = controller().cluster()) {
        const QString name = QStringLiteral("worker:%1").arg(worker);
        for (const ClusterRun::Task& task : cluster->tasks())
            if (task.name == name) status.alive = task.state != ClusterRun::TaskState::Lost && task.state != ClusterRun::TaskState::Failed;
    }
    return status;
}

bool ParameterServerView::refresh() {
    const RunConfig& config = controller().config();
    const bool parameterServers = controller().hasRun() && config.strategy.type == StrategyKind::ParameterServer;
    m_pages->setCurrentIndex(parameterServers ? 1 : 0);
    if (!parameterServers) {
        const QString strategy = QString::fromLatin1(configName(config.strategy.type));
        m_introText->setText(tr("<h3>Parameter servers</h3><p>Workers push gradients to parameter servers, which apply "
                                "each one as it arrives: nobody waits for anybody. This tab shows the workers and the "
                                "servers with the variable shards they hold, every push and pull as it happens, and how "
                                "stale the applied gradients are; you can slow, pause and kill workers or lose a server "
                                "while it trains.</p><p>The current run uses <b>%1</b>. To start a parameter-server run, "
                                "choose <i>Run set-up → Strategy → Parameter servers</i>, open a config such as "
                                "<i>circle-parameter-server-4.json</i>, or:</p>")
                                 .arg(strategy.toHtmlEscaped()));
        return invalid() && controller().hasRun();  // the page names the new run's strategy
    }
    if (!m_topologyReady) buildTopology();
    if (!m_topologyReady) return false;  // the new run is still loading: nothing true to show yet
    ParameterServerControls* controls = controller().parameterServerControls();
    const UpdateTally& tally = controller().history().updates();
    const int workers = static_cast<int>(m_lastApplied.size());
    const qint64 elapsed = m_rateClock.isValid() ? m_rateClock.elapsed() : 0;
    std::vector<TopologyCanvas::Worker> boxes(static_cast<std::size_t>(workers));
    int live = 0;
    std::int64_t pushed = 0;
    for (int w = 0; w < workers; ++w) {
        const auto index = static_cast<std::size_t>(w);
        // The run's own controls while it has them (they stay readable after it ended); otherwise
        // the worker as last seen, never a default one.
        if (controls != nullptr)
            m_status[index] = controls->workerStatus(w);
        else if (controller().cluster() != nullptr)
            m_status[index] = clusterWorkerStatus(w);
        const WorkerStatus status = m_status[index];
        const std::int64_t applied = status.updates;
        if (applied > m_lastApplied[index]) m_canvas->pulse(w);
        m_lastApplied[index] = applied;
        if (elapsed >= kRateWindowMs) {
            m_rates[index] = double(applied - m_rateBase[index]) * 1000.0 / double(elapsed);
            m_rateBase[index] = applied;
        }
        boxes[index] = {status.alive, status.paused, status.speed, status.gradients, applied, m_rates[index]};
        m_workers->showStatus(w, status);
        live += status.alive && !status.paused ? 1 : 0;
        pushed += status.gradients;
    }
    const std::int64_t updates = controller().stepsDone();
    if (elapsed >= kRateWindowMs) {
        m_updateRate = double(updates - m_updatesBase) * 1000.0 / double(elapsed);
        m_updatesBase = updates;
        m_rateClock.restart();
    }
    m_canvas->setWorkers(std::move(boxes));
    const bool sync = config.strategy.mode == ParameterServerMode::Sync;
    const double theory = sync ? 0.0 : std::max(0, live - 1);
    const bool fresh = tally.updates() != m_drawnUpdates || invalid();
    if (fresh) {
        m_drawnUpdates = tally.updates();
        m_histogram->setData(tally, theory);
        updateStalenessText(live, theory);
    }
    const QLocale locale;
    // An async update applies one gradient; a sync one averages several, so it applies more gradients
    // a second than updates.
    double gradientRate = 0.0;
    for (double rate : m_rates) gradientRate += rate;
    m_summary->setText(tr("%1 updates applied from %2 gradients pushed · %3 updates/s, applying %4 gradients/s · "
                          "%5 of %6 workers live")
                           .arg(locale.toString(updates), locale.toString(pushed), locale.toString(m_updateRate, 'f', 0),
                                locale.toString(gradientRate, 'f', 0))
                           .arg(live)
                           .arg(workers));
    return fresh && tally.updates() > 0;
}

void ParameterServerView::updateStalenessText(int liveWorkers, double theory) {
    const UpdateTally& tally = controller().history().updates();
    if (controller().config().strategy.mode == ParameterServerMode::Sync) {
        m_stalenessText->setText(
            tr("<p><b>Synchronous:</b> the servers apply only gradients computed on the current "
               "parameters and drop the others, so every applied update has staleness 0.</p>"));
        return;
    }
    m_stalenessText->setText(tr("<p>Mean over the last %5 <b>%1</b> (whole run %2); theory for %3: "
                                "<b>N − 1 = %4</b>.</p><p>While one worker computes its gradient, each of the other "
                                "N − 1 pushes about one update, so the parameters have moved on by about N − 1 updates "
                                "when its gradient is applied. Pause or kill a worker and N drops.</p>")
                                 .arg(tally.windowMean(), 0, 'f', 2)
                                 .arg(tally.runMean(), 0, 'f', 2)
                                 .arg(countText(liveWorkers, tr("live worker"), tr("live workers")))
                                 .arg(theory, 0, 'f', 0)
                                 .arg(countText(tally.windowCount(), tr("update"), tr("updates"))));
}

void ParameterServerView::saveCheckpoint() {
    m_resumeMessage.clear();
    m_checkpointText->setText(tr("Saving a checkpoint…"));
    controller().saveCheckpointNow(this, [this](const QString& error) {
        if (error.isEmpty())
            updateCheckpointText();
        else
            m_checkpointText->setText(tr("Could not save the checkpoint: %1").arg(error));
        emit checkpointSaved(error.isEmpty());
    });
}

bool ParameterServerView::resumeCheckpoint() {
    m_resumeMessage.clear();
    if (!controller().resumeFromCheckpoint()) return false;
    m_checkpointText->setText(tr("Resuming from the checkpoint at update %1…").arg(QLocale().toString(controller().checkpointStep())));
    return true;
}

void ParameterServerView::updateCheckpointText() {
    const std::int64_t step = controller().checkpointStep();
    m_resume->setEnabled(step >= 0 && controller().hasRun() && controller().state() != SessionState::Loading);
    if (!m_resumeMessage.isEmpty()) {
        m_checkpointText->setText(m_resumeMessage);
    } else {
        m_checkpointText->setText(step >= 0 ? tr("Last checkpoint at update %1.").arg(QLocale().toString(step)) : QString());
    }
    updateEndedNote();
}

void ParameterServerView::updateEndedNote() {
    auto* ended = findChild<QLabel*>(QStringLiteral("runEndedNote"));
    if (ended == nullptr) return;
    if (controller().cluster() != nullptr) {  // no controls to explain; the Tasks tab says how it ended
        ended->hide();
        return;
    }
    const SessionState state = controller().state();
    const bool alive = state == SessionState::Running || state == SessionState::Paused || state == SessionState::Stepping;
    const QLocale locale;
    const std::int64_t checkpoint = controller().checkpointStep();
    if (state == SessionState::Finished) {
        ended->setText(tr("The run has finished after %1 updates: the worker and server controls act only on a live "
                          "run. Press Play to train again from the start.")
                           .arg(locale.toString(controller().stepsDone())));
    } else if (state == SessionState::Failed && m_lostServer >= 0) {
        const QString lost = tr("Server %1 was lost at update %2: the run stopped, as a real cluster's would.")
                                 .arg(m_lostServer)
                                 .arg(locale.toString(m_lostAt >= 0 ? m_lostAt : controller().stepsDone()));
        ended->setText(checkpoint >= 0 ? tr("%1 <b>Resume from checkpoint</b> goes on from update %2, the last checkpoint the app "
                                            "kept; or Reset to train again from the start.")
                                             .arg(lost, locale.toString(checkpoint))
                                       : tr("%1 No checkpoint was kept before the loss: Reset to train again from the start.").arg(lost));
    } else if (state == SessionState::Failed || state == SessionState::Stopped) {
        ended->setText(checkpoint >= 0
                           ? tr("The run has ended: the worker and server controls act only on a live run. <b>Resume from "
                                "checkpoint</b> goes on from update %1, or Reset to train again.")
                                 .arg(locale.toString(checkpoint))
                           : tr("The run has ended: the worker and server controls act only on a live run. Reset to train again."));
    }
    ended->setVisible(!alive && state != SessionState::Loading && controller().hasRun());
}

void ParameterServerView::onStateChanged() {
    const SessionState state = controller().state();
    const bool alive = state == SessionState::Running || state == SessionState::Paused ||
                       state == SessionState::Stepping;  // failed or finished: no controls
    m_serverRow->setEnabled(alive);
    m_workers->setEnabled(alive);
    m_mode->setEnabled(alive && controller().cluster() == nullptr);  // a cluster's mode is its config's
    if (state == SessionState::Failed && m_lostServer >= 0 && m_lostAt < 0) m_lostAt = controller().stepsDone();
    if (state == SessionState::Running) m_resumeMessage.clear();
    updateCheckpointText();  // also the note that says the run has ended
}

}  // namespace distlab::ui
