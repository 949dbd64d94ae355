#include "bridge/comm_capture.hpp"

#include <algorithm>
#include <optional>

#include <distlab/session/training_session.hpp>

#include "bridge/session_controller.hpp"

namespace distlab::ui {

namespace {
// The most steps one pack's all-reduce can take on `ranks` ranks, whatever the algorithm (the
// group's algorithm is read on the session thread; the trace is sized before, on this one).
int maxStepsPerPack(int ranks) {
    int steps = 0;
    for (CrossDeviceOps algorithm :
         {CrossDeviceOps::ReductionToOneDevice, CrossDeviceOps::HierarchicalCopy, CrossDeviceOps::Ring, CrossDeviceOps::Tree})
        steps = std::max(steps, allReduceStepCount(algorithm, ranks));
    return steps;
}
}  // namespace

CommCapture::CommCapture(SessionController& controller, QObject* parent) : QObject(parent), m_controller(&controller) {
    connect(&controller, &SessionController::ticked, this, &CommCapture::poll);
    connect(&controller, &SessionController::runReplaced, this, [this] {
        // The run captured (and its group, which held the trace) is gone: nothing to detach.
        m_session = nullptr;
        ++m_capture;  // answers still on their way belong to that run
        m_attaching = false;
        m_detaching = false;
        m_latest = AllReduceCapture{};
        m_message.clear();
        emit captured();
        emit changed();
    });
}

CommCapture::~CommCapture() { detach(); }  // `then` would reach a destroyed object: none

void CommCapture::detach(std::function<void()> then) {
    // Between two steps, on the session thread; from then on nothing writes the trace (the task's
    // end happens before `then`). A run that has ended writes nothing already.
    const bool attachedToCurrent = m_session != nullptr && !m_controller.isNull() && m_controller->session() == m_session;
    m_session = nullptr;
    if (!attachedToCurrent) {
        if (then) then();
        return;
    }
    m_controller->runBetweenSteps([trace = m_trace](Trainer& trainer) { trainer.setCollectiveTrace(nullptr); }, m_controller,
                                  [then = std::move(then)](bool) {
                                      if (then) then();
                                  });
}

QString CommCapture::refusal() const {
    SessionController& controller = *m_controller;
    if (controller.cluster() != nullptr)
        return tr(
            "A cluster's all-reduce runs across its processes: to step through one, train the same replicas as "
            "Mirrored on this machine's threads. The charts below are the cluster's own.");
    if (!controller.hasRun() || controller.isLoading() || controller.snapshot() == nullptr) return tr("No run is loaded yet.");
    const StrategyConfig& strategy = controller.config().strategy;
    if (strategy.type == StrategyKind::ParameterServer)
        return tr("Parameter servers do not all-reduce: each worker pushes its gradient to the servers.");
    if (strategy.type == StrategyKind::TensorParallel)
        return tr(
            "Tensor parallelism all-reduces no gradient: each step sums the row-split layers' partial outputs and the "
            "column-split layers' input gradients, buffers of their own sizes. The charts and tables below count them; "
            "stepping through one is not available yet.");
    if (strategy.type == StrategyKind::Pipeline || strategy.type == StrategyKind::ModelParallel)
        return strategy.dataParallel > 1
                   ? tr("A pipeline's copies all-reduce each stage's gradients among the same device of every copy, not among "
                        "all the devices: the charts and tables below count them; stepping through one is not available yet.")
                   : tr("A split model hands activations and their gradients between stages; with one copy of the variables "
                        "it all-reduces nothing (the Schedule tab shows the hand-overs).");
    if (strategy.replicaCount() < 2) return tr("One device has nothing to reduce: choose Mirrored with 2 or more devices.");
    if (strategy.replicaCount() > AllReduceCapture::kMaxRanks)
        return tr("The view follows at most %1 devices.").arg(AllReduceCapture::kMaxRanks);
    switch (controller.state()) {
        case SessionState::Running:
        case SessionState::Stepping:
        case SessionState::Paused:
            return {};
        case SessionState::Finished:
            return tr("The run has finished: press Reset (or raise its step limit) to capture an all-reduce.");
        default:
            return tr("The run has stopped.");
    }
}

bool CommCapture::captureNext(bool stepIfPaused) {
    if (m_controller.isNull()) return false;
    if (busy() && stepIfPaused && !m_stepIfPaused) {
        m_stepIfPaused = true;  // an armed capture: take its step now
        poll();
        return true;
    }
    if (busy()) {
        m_message = tr("Waiting for the next all-reduce…");
        return false;
    }
    if (const QString why = refusal(); !why.isEmpty()) {
        m_message = why;
        emit changed();
        return false;
    }
    SessionController& controller = *m_controller;
    TrainingSession* session = controller.session();
    const RunConfig& config = controller.config();
    const int ranks = static_cast<int>(config.strategy.replicaCount());
    m_packs.clear();
    const GradientPacker packer(config.strategy, controller.snapshot()->parameters);
    m_packs.assign(packer.packs().begin(), packer.packs().end());
    if (m_packs.empty()) {
        m_message = tr("The model has no parameters to reduce.");
        emit changed();
        return false;
    }
    // Room for exactly one training step: a running session may take a few more steps before the
    // trace is detached; what does not fit is dropped (and left out of the capture anyway).
    const std::int64_t elements = m_packs.back().end;
    const std::int64_t steps = maxStepsPerPack(ranks);
    const auto packs = static_cast<std::int64_t>(m_packs.size());
    CollectiveTrace::Limits limits;
    // A rank logs at most one transfer per peer per step, and, without snapshots, the ring one per
    // 256 Ki-element segment of the buffer.
    limits.eventsPerRank = packs * steps * (ranks + elements / (256 * 1024) + 1) + 16;
    if (elements * (steps + 1) * ranks <= kMaxSnapshotFloats) {
        limits.snapshotsPerRank = packs * (steps + 1);
        limits.snapshotFloatsPerRank = elements * (steps + 1);
    }
    m_trace = std::make_shared<CollectiveTrace>(ranks, limits);
    m_trace->setCaptureSnapshots(limits.snapshotsPerRank > 0);

    struct Attached {
        bool ok = false;
        std::int64_t startStep = 0;
    };
    const std::uint64_t capture = ++m_capture;
    controller.askTrainer(
        this,
        [trace = m_trace, ranks](Trainer& trainer) {
            Attached answer;
            if (trainer.replicaCount() != ranks) return answer;
            answer.ok = trainer.setCollectiveTrace(trace.get());
            answer.startStep = trainer.stepsDone();
            return answer;
        },
        [this, capture](std::optional<Attached> answer) { attached(capture, answer && answer->ok, answer ? answer->startStep : 0); });
    // The algorithm the run's replicas were built with (the session's config never changes).
    m_algorithm = session->config().strategy.crossDeviceOps;
    m_session = session;
    m_attaching = true;
    m_stepRequested = false;
    m_stepIfPaused = stepIfPaused;
    m_message = stepIfPaused ? tr("Waiting for the next all-reduce…")
                             : tr("Press Play or Step: the run's next all-reduce is captured as it happens.");
    emit changed();
    return true;
}

void CommCapture::attached(std::uint64_t capture, bool ok, std::int64_t startStep) {
    if (capture != m_capture || !m_attaching) return;  // the run was replaced meanwhile
    m_attaching = false;
    if (!ok) {
        m_session = nullptr;  // nothing attached: nothing to detach
        m_trace.reset();
        m_message = tr("This run has no all-reduce to capture.");
        emit changed();
        return;
    }
    m_startStep = startStep;
    poll();
}

void CommCapture::poll() {
    if (m_session == nullptr || m_controller.isNull() || m_attaching || m_detaching) return;
    SessionController& controller = *m_controller;
    if (controller.session() != m_session) {
        abandon(QString());
        return;
    }
    if (m_session->stepsDone() > m_startStep) {
        finish();
        return;
    }
    switch (m_session->state()) {
        case SessionState::Running:
        case SessionState::Stepping:
            break;
        case SessionState::Paused:
            // Paused (or paused since the capture began): take the one step the capture needs.
            if (!m_stepRequested && m_stepIfPaused) {
                m_stepRequested = true;
                controller.stepOnce();
            }
            break;
        default:
            abandon(tr("The run ended before its next all-reduce."));
            break;
    }
}

void CommCapture::finish() {
    m_detaching = true;
    const std::uint64_t capture = m_capture;
    detach([self = QPointer<CommCapture>(this), capture] {
        if (self.isNull()) return;
        self->detached(capture);
    });
}

void CommCapture::detached(std::uint64_t capture) {
    if (capture != m_capture || !m_detaching) return;  // the run was replaced meanwhile
    m_detaching = false;
    m_latest = AllReduceCapture::fromTrace(*m_trace, m_algorithm, m_packs, m_startStep + 1);
    m_trace.reset();
    m_message.clear();
    emit captured();
    emit changed();
}

void CommCapture::abandon(const QString& message) {
    detach();
    m_trace.reset();  // the detaching task holds it while it needs it
    m_message = message;
    emit changed();
}

}  // namespace distlab::ui
