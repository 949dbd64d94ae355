// The training session: commands between steps, telemetry through the rings, stopping promptly
// from any state, tasks posted to the thread that owns the trainer, and failures that end the run
// (never the process). Runs under ThreadSanitizer too (label "threads").
#include <QtTest>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "distlab/comm/collective_trace.hpp"
#include "distlab/session/training_session.hpp"

using namespace distlab;

namespace {

RunConfig spiralConfig(int replicas) {
    RunConfig config;
    config.seed = 5;
    config.model.layers = {{"dense", 8, Activation::Tanh, ""}, {"dense", 8, Activation::Tanh, ""}, {"dense", 2, Activation::Linear, ""}};
    config.data.source = DataSource::Synthetic;
    config.data.kind = SyntheticKind::Circle;
    config.data.samples = 400;
    config.data.globalBatchSize = 16;
    config.optimizer.learningRate = 0.1;
    config.strategy.type = replicas > 1 ? StrategyKind::Mirrored : StrategyKind::OneDevice;
    for (int r = 0; r < replicas; ++r) config.strategy.devices.push_back({DeviceName::Kind::Cpu, r});
    config.steps = 0;
    return config;
}

struct RecordingObserver : SessionObserver {
    std::atomic<int> states{0};
    std::atomic<bool> failed{false};
    std::string error;  // written before `failed` is set
    std::mutex historyMutex;
    std::vector<SessionState> history;
    void onStateChanged(SessionState state) override {
        ++states;
        std::lock_guard lock(historyMutex);
        history.push_back(state);
    }
    void onError(const std::string& message) override {
        error = message;
        failed = true;
    }
    std::vector<SessionState> seen() {
        std::lock_guard lock(historyMutex);
        return history;
    }
};

bool waitFor(const std::function<bool()>& condition, int timeoutMs = 10000) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (!condition()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
}

}  // namespace

class TestSession : public QObject {
    Q_OBJECT
private slots:
    void playPauseStepAndTelemetry() {
        RecordingObserver observer;
        SessionOptions options;
        options.stepLimit = 0;
        TrainingSession session(spiralConfig(4), options, &observer);
        QVERIFY(waitFor([&] { return session.state() == SessionState::Paused; }));
        session.setWatched({{0, 0}, {1, 3}});
        session.stepOnce();
        QVERIFY(waitFor([&] { return session.stepsDone() == 1; }));
        session.play();
        QVERIFY(waitFor([&] { return session.stepsDone() >= 200; }));
        session.pause();
        QVERIFY(waitFor([&] { return session.state() == SessionState::Paused; }));
        const std::int64_t paused = session.stepsDone();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        QCOMPARE(session.stepsDone(), paused);

        std::int64_t lastStep = 0, steps = 0;
        session.telemetry().steps().drain([&](const StepRecord& r) {
            QCOMPARE(r.step, lastStep + 1);
            lastStep = r.step;
            ++steps;
        });
        QCOMPARE(steps, paused);
        for (int replica = 0; replica < 4; ++replica) {
            std::int64_t records = 0;
            session.telemetry().replica(replica).drain([&](const ReplicaRecord& r) {
                QCOMPARE(r.replica, replica);
                QVERIFY(r.gradNormBefore > 0);
                QVERIFY(r.startNs <= r.computeEndNs && r.updateEndNs <= r.stepEndNs);
                ++records;
            });
            QCOMPARE(records, paused);
        }
        // Mirrored copies of a watched value agree on every replica: check the trainer's own buffers
        // (read on the session thread, which owns them).
        const std::vector<float> copies = session
                                              .post([](Trainer& trainer) {
                                                  std::vector<float> values;
                                                  for (int r = 0; r < trainer.replicaCount(); ++r)
                                                      values.push_back(trainer.replicaModel(r).store().value(1)[3]);
                                                  return values;
                                              })
                                              .get();
        QCOMPARE(int(copies.size()), 4);
        for (int r = 1; r < 4; ++r) QCOMPARE(copies[static_cast<std::size_t>(r)], copies[0]);
        int evals = 0;
        session.telemetry().evals().drain([&](const EvalRecord& r) {
            QVERIFY(r.hasTest);
            QVERIFY(r.testAccuracy >= 0 && r.testAccuracy <= 1);
            ++evals;
        });
        QVERIFY(evals >= 1);
        auto snapshot = session.latestSnapshot();
        QVERIFY(snapshot != nullptr);
        QCOMPARE(snapshot->layerWidths, (std::vector<std::int64_t>{2, 8, 8, 2}));
        QCOMPARE(int(snapshot->grid.size()), snapshot->gridResolution * snapshot->gridResolution);
        QVERIFY(!observer.failed);
    }

    void speedLimitAndLearningRate() {
        SessionOptions options;
        options.stepLimit = 0;
        TrainingSession session(spiralConfig(1), options, nullptr);
        QVERIFY(waitFor([&] { return session.state() == SessionState::Paused; }));
        session.setSpeedLimit(50);
        session.setLearningRate(0.25f);
        session.play();
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        const auto steps = session.stepsDone();
        QVERIFY2(steps >= 15 && steps <= 35, qPrintable(QString::number(steps)));
        bool sawRate = false;
        session.telemetry().steps().drain([&](const StepRecord& r) { sawRate = sawRate || r.learningRate == 0.25f; });
        QVERIFY(sawRate);
    }

    void stepLimitFinishes() {
        SessionOptions options;
        options.stepLimit = 30;
        TrainingSession session(spiralConfig(2), options, nullptr);
        QVERIFY(waitFor([&] { return session.state() == SessionState::Paused; }));
        session.play();
        QVERIFY(waitFor([&] { return session.state() == SessionState::Finished; }));
        QCOMPARE(session.stepsDone(), std::int64_t{30});
    }

    void stopsWithinASecond() {
        SessionOptions options;
        options.stepLimit = 0;
        auto session = std::make_unique<TrainingSession>(spiralConfig(8), options, nullptr);
        QVERIFY(waitFor([&] { return session->state() == SessionState::Paused; }));
        session->play();
        QVERIFY(waitFor([&] { return session->stepsDone() > 10; }));
        QElapsedTimer timer;
        timer.start();
        session.reset();
        QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
        // A slow run (speed limit 1 step/s) also stops at once.
        session = std::make_unique<TrainingSession>(spiralConfig(2), options, nullptr);
        QVERIFY(waitFor([&] { return session->state() == SessionState::Paused; }));
        session->setSpeedLimit(1);
        session->play();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        timer.restart();
        session.reset();
        QVERIFY(timer.elapsed() < 1000);
    }

    void parameterServerControlsWhileRunning() {
        RunConfig config = spiralConfig(1);
        config.strategy.type = StrategyKind::ParameterServer;
        config.strategy.workers = 3;
        config.strategy.parameterServers = 2;
        config.strategy.devices = {{DeviceName::Kind::Cpu, 0}};
        RecordingObserver observer;
        SessionOptions options;
        options.stepLimit = 0;
        TrainingSession session(config, options, &observer);
        QVERIFY(waitFor([&] { return session.state() == SessionState::Paused; }));
        QCOMPARE(session.replicaCount(), 3);
        ParameterServerControls* controls = session.parameterServerControls();
        QVERIFY(controls != nullptr);
        session.play();
        QVERIFY(waitFor([&] { return session.stepsDone() >= 100; }));
        controls->killWorker(2);
        controls->setWorkerSpeed(1, 0.5);
        const std::int64_t after = session.stepsDone();
        QVERIFY(waitFor([&] { return session.stepsDone() >= after + 200; }));
        std::int64_t withStaleness = 0;
        session.telemetry().steps().drain([&](const StepRecord& r) { withStaleness += r.staleness > 0 ? 1 : 0; });
        QVERIFY(withStaleness > 0);
        controls->killParameterServer(0);
        QVERIFY(waitFor([&] { return session.state() == SessionState::Failed; }));
        QVERIFY2(observer.error.find("ps:0") != std::string::npos, observer.error.c_str());
    }

    void learningRateSetWhileLoadingIsKept() {
        // Set before the trainer exists: queued like every command, applied once it is built.
        TrainingSession session(spiralConfig(2), SessionOptions{0}, nullptr);
        session.setLearningRate(0.375f);
        session.stepOnce();
        QVERIFY(waitFor([&] { return session.stepsDone() == 1; }));
        float rate = 0;
        session.telemetry().steps().drain([&](const StepRecord& r) { rate = r.learningRate; });
        QCOMPARE(rate, 0.375f);
        QCOMPARE(session.post([](Trainer& trainer) { return trainer.learningRate(); }).get(), 0.375f);
    }

    void liveCommandsFromOtherThreadsWhileStepping() {
        // The races the GUI used to have: learning-rate changes, single steps while paused, tasks
        // and the communication capture's trace, all from threads other than the session's, while
        // it runs and while it is paused. ThreadSanitizer (the tsan preset) checks this is clean.
        RecordingObserver observer;
        TrainingSession session(spiralConfig(4), SessionOptions{0}, &observer);
        std::atomic<bool> done{false};
        std::thread rates([&] {
            for (int i = 0; !done; ++i) {
                session.setLearningRate(0.05f + 0.001f * float(i % 50));
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            }
        });
        QVERIFY(waitFor([&] { return session.state() != SessionState::Loading; }));
        for (int round = 0; round < 20; ++round) {
            session.stepOnce();
            session.play();
            session.pause();
            session.stepOnce();
            // A capture: attach a trace between steps, take one step, detach, then read it here.
            CollectiveTrace trace(4, CollectiveTrace::Limits{4096, 0, 0});
            bool attached = false;
            const std::int64_t before = session
                                            .post([&](Trainer& trainer) {
                                                attached = trainer.setCollectiveTrace(&trace);
                                                return trainer.stepsDone();
                                            })
                                            .get();
            QVERIFY(attached);
            session.stepOnce();
            QVERIFY(waitFor([&] { return session.stepsDone() > before; }));
            session.post([](Trainer& trainer) { trainer.setCollectiveTrace(nullptr); }).get();
            for (int rank = 0; rank < 4; ++rank) QVERIFY(!trace.events(rank).empty());
        }
        done = true;
        rates.join();
        QVERIFY(!observer.failed);
        const auto states = observer.seen();
        QVERIFY(std::find(states.begin(), states.end(), SessionState::Stepping) != states.end());
    }

    void stepWhilePausedIsStepping() {
        RecordingObserver observer;
        TrainingSession session(spiralConfig(2), SessionOptions{0}, &observer);
        QVERIFY(waitFor([&] { return session.state() == SessionState::Paused; }));
        session.stepOnce();
        QVERIFY(waitFor([&] { return session.stepsDone() == 1 && session.state() == SessionState::Paused; }));
        const auto states = observer.seen();  // Paused (loaded), Stepping, Paused
        QCOMPARE(states, (std::vector<SessionState>{SessionState::Paused, SessionState::Stepping, SessionState::Paused}));
    }

    void aThrowingTaskEndsTheRunWithItsMessage() {
        RecordingObserver observer;
        TrainingSession session(spiralConfig(2), SessionOptions{0}, &observer);
        auto failing = session.post([](Trainer&) -> int { throw std::runtime_error("disk on fire"); });
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, failing.get());
        QVERIFY(waitFor([&] { return session.state() == SessionState::Failed; }));
        QVERIFY(observer.failed);
        QVERIFY2(observer.error.find("disk on fire") != std::string::npos, observer.error.c_str());
        // Nothing waits forever on an ended session: later tasks fail at once.
        auto late = session.post([](Trainer& trainer) { return trainer.stepsDone(); });
        QCOMPARE(late.wait_for(std::chrono::seconds(0)), std::future_status::ready);
        QVERIFY_THROWS_EXCEPTION(SessionEnded, late.get());
    }

    void tasksQueuedAtStopAreCancelled() {
        auto session = std::make_unique<TrainingSession>(spiralConfig(1), SessionOptions{0}, nullptr);
        QVERIFY(waitFor([&] { return session->state() == SessionState::Paused; }));
        session->setSpeedLimit(2);
        session->play();
        session->stop();
        auto after = session->post([](Trainer& trainer) { return trainer.stepsDone(); });
        session.reset();
        QCOMPARE(after.wait_for(std::chrono::seconds(0)), std::future_status::ready);
        QVERIFY_THROWS_EXCEPTION(SessionEnded, after.get());
    }

    void aFailedReplicaEndsTheRunCleanly() {
        // Replica 2's device is lost after its gradient, while the other three wait for it in the
        // all-reduce: they are released, and the run fails naming replica 2; no thread terminates.
        for (CrossDeviceOps algorithm :
             {CrossDeviceOps::Ring, CrossDeviceOps::Tree, CrossDeviceOps::HierarchicalCopy, CrossDeviceOps::ReductionToOneDevice}) {
            RunConfig config = spiralConfig(4);
            config.strategy.crossDeviceOps = algorithm;
            RecordingObserver observer;
            TrainingSession session(config, SessionOptions{0}, &observer);
            QVERIFY(waitFor([&] { return session.state() == SessionState::Paused; }));
            session.play();
            QVERIFY(waitFor([&] { return session.stepsDone() >= 20; }));
            QVERIFY(session.post([](Trainer& trainer) { return trainer.failDevice(2); }).get());
            QVERIFY(waitFor([&] { return session.state() == SessionState::Failed; }, 5000));
            QVERIFY2(observer.error.find("replica 2 failed: device cpu:2 was lost") != std::string::npos, observer.error.c_str());
            auto late = session.post([](Trainer& trainer) { return trainer.stepsDone(); });
            QVERIFY_THROWS_EXCEPTION(SessionEnded, late.get());
        }
    }

    void badDataReportsAnError() {
        RunConfig config = spiralConfig(1);
        config.data.source = DataSource::Csv;
        config.data.path = "/nonexistent/data.csv";
        RecordingObserver observer;
        TrainingSession session(config, {}, &observer);
        QVERIFY(waitFor([&] { return session.state() == SessionState::Failed; }));
        QVERIFY(observer.failed);
        QVERIFY2(observer.error.find("data.csv") != std::string::npos, observer.error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSession)
#include "test_session.moc"
