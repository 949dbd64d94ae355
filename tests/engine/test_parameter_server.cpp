// Parameter-server training (docs/semantics.md §6): partitioners, asynchronous and synchronous updates,
// staleness, stragglers, lost workers and lost servers.
#include <QtTest>

#include <omp.h>

#include <chrono>
#include <thread>

#include "distlab/distribute/parameter_server_trainer.hpp"
#include "distlab/formats/checkpoint.hpp"
#include "distlab/session/training_session.hpp"
#include "distribute/parameter_transport.hpp"
#include "trainer_fixtures.hpp"

using namespace distlab;
using namespace distlab::testing;

namespace {
RunConfig psConfig(int workers, ParameterServerMode mode, int servers = 2) {
    RunConfig config = smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1);
    config.strategy.type = StrategyKind::ParameterServer;
    config.strategy.workers = workers;
    config.strategy.parameterServers = servers;
    config.strategy.mode = mode;
    return config;
}
std::vector<float> valuesOf(Trainer& trainer) {
    const auto v = trainer.primaryModel().store().values();
    return {v.begin(), v.end()};
}
}  // namespace

class TestParameterServer : public QObject {
    Q_OBJECT
private slots:
    void partitionerWorkedCases() {
        QCOMPARE(shardRows(13, 5), (std::vector<std::int64_t>{3, 3, 3, 2, 2}));
        QCOMPARE(shardRows(3, 5), (std::vector<std::int64_t>{1, 1, 1}));  // k = min(p, rows)
        PartitionerConfig fixed{PartitionerConfig::Kind::Fixed, 5};
        QCOMPARE(requestedShards(fixed, 13, 13 * 400), std::int64_t{5});
        // min_size: ceil(bytes / min_shard_bytes), capped by max_shards and rows.
        PartitionerConfig minSize{PartitionerConfig::Kind::MinSize, 1, 256 * 1024, 1, 0};
        QCOMPARE(requestedShards(minSize, 1000, 1024 * 1024), std::int64_t{1});  // max_shards = 1 by default
        minSize.maxShards = 8;
        QCOMPARE(requestedShards(minSize, 1000, 1024 * 1024), std::int64_t{4});
        QCOMPARE(requestedShards(minSize, 1000, 1024 * 1024 + 1), std::int64_t{5});
        QCOMPARE(requestedShards(minSize, 3, 1024 * 1024), std::int64_t{3});
        QCOMPARE(requestedShards(minSize, 1000, 100), std::int64_t{1});
        // max_size: fewest shards with none above max_shard_bytes (whole rows), capped by max_shards.
        PartitionerConfig maxSize{PartitionerConfig::Kind::MaxSize, 1, 0, 100, 4000};
        QCOMPARE(requestedShards(maxSize, 100, 100 * 400), std::int64_t{10});  // 10 rows of 400 bytes each
        QCOMPARE(requestedShards(maxSize, 100, 100 * 410), std::int64_t{12});  // 9 rows fit: ceil(100 / 9)
        maxSize.maxShards = 4;
        QCOMPARE(requestedShards(maxSize, 100, 100 * 400), std::int64_t{4});
    }

    void placementIsRoundRobin() {
        ModelConfig model;
        model.layers = {{"dense", 13, Activation::Relu, ""}, {"dense", 2, Activation::Linear, ""}};
        Model m(model, 13);  // dense_0/kernel [13, 13], dense_0/bias [13], dense_1/kernel [13, 2], dense_1/bias [2]
        const auto shards = placeShards(m.store(), {PartitionerConfig::Kind::Fixed, 5}, 3);
        QCOMPARE(int(shards.size()), 5 + 5 + 5 + 2);
        QCOMPARE(shards[0].name, std::string("dense_0/kernel/part_0"));
        QCOMPARE(shards[0].rows, std::int64_t{3});
        QCOMPARE(shards[4].rows, std::int64_t{2});
        for (std::size_t i = 0; i < shards.size(); ++i) QCOMPARE(shards[i].server, int(i % 3));
        std::int64_t covered = 0;
        for (const auto& shard : shards) covered += shard.size;
        QCOMPARE(covered, m.store().totalSize());
    }

    void theTransportCarriesCopies() {
        // Workers and servers meet only in the transport's slots: what crosses is a copy, taken
        // when sent, so neither side ever reads the other's buffer.
        InProcessParameterTransport transport(2, 3);
        std::vector<float> server{1, 2, 3}, worker(3, 0.0f);
        QCOMPARE(transport.sendParameters(1, server), std::int64_t{12});
        server[0] = 99;  // the servers move on after answering the read
        transport.receiveParameters(1, worker);
        QCOMPARE(worker, (std::vector<float>{1, 2, 3}));
        std::vector<float> gradient{0.5f, -1, 2};
        QCOMPARE(transport.sendGradient(0, gradient), std::int64_t{12});
        gradient[1] = 7;  // the worker's next step overwrites its buffer
        const auto pushed = transport.receivedGradient(0);
        QCOMPARE(std::vector<float>(pushed.begin(), pushed.end()), (std::vector<float>{0.5f, -1, 2}));
        QCOMPARE(transport.receivedGradient(1)[0], 0.0f);  // worker 1 pushed nothing yet
    }

    void oneAsyncWorkerIsPlainSgd() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        RunConfig config = psConfig(1, ParameterServerMode::Async);
        config.optimizer.type = OptimizerKind::Adam;
        config.optimizer.learningRate = 0.01;
        RunConfig single = smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Adam, 0.0, 1);
        MirroredTrainer reference(single, data);
        ParameterServerTrainer ps(config, data);
        for (int i = 0; i < 40; ++i) {
            const StepReport& report = ps.step();
            QCOMPARE(report.staleness, std::int64_t{0});
            QCOMPARE(report.worker, 0);
            QCOMPARE(report.loss, reference.step().loss);
        }
        QVERIFY(valuesOf(ps) == valuesOf(reference));
    }

    void replicasInsideAWorkerAreSynchronous() {
        // One worker with two replicas (mirrored inside the worker) computes the same gradient as
        // one device on the whole batch, up to the order of the sums.
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        RunConfig config = psConfig(1, ParameterServerMode::Async);
        config.strategy.replicasPerWorker = 2;
        MirroredTrainer reference(smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1), data);
        ParameterServerTrainer ps(config, data);
        for (int i = 0; i < 30; ++i) {
            const StepReport& report = ps.step();
            QVERIFY(std::abs(report.loss - reference.step().loss) < 1e-5);
        }
        QVERIFY(relativeError(valuesOf(ps), reference.replicaModel(0).store().values()) < 1e-5);
    }

    void aWorkerRecordsItsGradientAsSpans() {
        // Pull, each replica-0 forward and backward, the worker group's all-reduce (2 replicas),
        // the push, then a straggler's delay; in time order, the bytes those moved.
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        RunConfig config = psConfig(1, ParameterServerMode::Async);
        config.strategy.replicasPerWorker = 2;
        config.strategy.workerSpeed = {0.5};
        ParameterServerTrainer ps(config, data);
        const std::int64_t parameterBytes = ps.primaryModel().store().totalSize() * 4;
        for (int step = 0; step < 3; ++step) {
            const StepReport& report = ps.step();
            const ReplicaStepStats& lane = report.replicas[0];
            std::vector<SpanKind> kinds;
            std::int64_t previousEnd = 0;
            for (const Span& span : lane.spans) {
                QVERIFY(span.beginNs >= previousEnd && span.endNs >= span.beginNs);
                previousEnd = span.endNs;
                kinds.push_back(span.kind);
                if (span.kind == SpanKind::Pull || span.kind == SpanKind::Push) QCOMPARE(span.bytes, parameterBytes);
            }
            QCOMPARE(kinds, (std::vector<SpanKind>{SpanKind::Pull, SpanKind::Forward, SpanKind::Backward, SpanKind::AllReduce,
                                                   SpanKind::Push, SpanKind::Delay}));
            QVERIFY(lane.spans.back().endNs <= lane.updateEndNs);
        }
    }

    void syncWithEveryGradientEqualsMirrored() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);  // 240 = 10 x (3 workers x 8)
        RunConfig config = psConfig(3, ParameterServerMode::Sync);
        config.data.globalBatchSize = 8;
        RunConfig mirroredConfig = smallConfig(3, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1);
        mirroredConfig.data.globalBatchSize = 24;
        MirroredTrainer mirrored(mirroredConfig, data);
        ParameterServerTrainer ps(config, data);
        for (int i = 0; i < 25; ++i) {
            const StepReport& report = ps.step();
            QVERIFY(report.applied);
            QCOMPARE(report.droppedStale, std::int64_t{0});
            QVERIFY(std::abs(report.loss - mirrored.step().loss) < 1e-5);
        }
        QVERIFY(relativeError(valuesOf(ps), mirrored.replicaModel(0).store().values()) < 1e-5);
    }

    // One definition of the samples an update trained on (docs/semantics.md §10), on worked numbers:
    // K updates of W workers with batch B are K x W x B samples in sync mode (K x A x B when A
    // gradients are averaged), K x B in async mode; mirrored, K x G. Each worker counts the updates
    // its gradients reached.
    void samplesCountEveryAveragedWorker() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        constexpr std::int64_t kUpdates = 25, kWorkers = 3, kBatch = 8;
        auto samplesOf = [](Trainer& trainer) {
            std::int64_t samples = 0;
            for (std::int64_t i = 0; i < kUpdates; ++i) samples += trainer.step().samples;
            return samples;
        };
        RunConfig sync = psConfig(kWorkers, ParameterServerMode::Sync);
        sync.data.globalBatchSize = kBatch;
        {
            ParameterServerTrainer ps(sync, data);
            QCOMPARE(samplesOf(ps), std::int64_t{25 * 3 * 8});
            for (int w = 0; w < kWorkers; ++w) QCOMPARE(ps.workerStatus(w).updates, kUpdates);
        }
        QCOMPARE(sync.samplesPerUpdate(), std::int64_t{3 * 8});
        sync.strategy.gradientsToAggregate = 2;
        {
            ParameterServerTrainer ps(sync, data);
            QCOMPARE(samplesOf(ps), std::int64_t{25 * 2 * 8});
        }
        QCOMPARE(sync.samplesPerUpdate(), std::int64_t{2 * 8});
        RunConfig async = psConfig(kWorkers, ParameterServerMode::Async);
        async.data.globalBatchSize = kBatch;
        {
            ParameterServerTrainer ps(async, data);
            QCOMPARE(samplesOf(ps), std::int64_t{25 * 8});
            std::int64_t updates = 0;
            for (int w = 0; w < kWorkers; ++w) updates += ps.workerStatus(w).updates;
            QCOMPARE(updates, kUpdates);  // one worker's gradient per update
        }
        QCOMPARE(async.samplesPerUpdate(), std::int64_t{8});
        RunConfig mirroredConfig = smallConfig(3, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1);
        mirroredConfig.data.globalBatchSize = 24;
        MirroredTrainer mirrored(mirroredConfig, data);
        QCOMPARE(samplesOf(mirrored), std::int64_t{25 * 24});
    }

    void equalAsyncWorkersHaveStalenessNMinusOne() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        for (int workers : {2, 4}) {
            // Gradients that take a while to compute (as real ones do), so that over the window
            // every worker gets the cores many times even when workers outnumber them.
            RunConfig config = psConfig(workers, ParameterServerMode::Async);
            config.model.layers[0].units = 128;
            config.model.layers[1].units = 128;
            ParameterServerTrainer ps(config, data);
            for (int i = 0; i < 50; ++i) ps.step();  // reach the steady state
            double sum = 0;
            const int updates = 2000;
            for (int i = 0; i < updates; ++i) sum += double(ps.step().staleness);
            const double mean = sum / updates;
            QVERIFY2(std::abs(mean - (workers - 1)) <= 0.5, qPrintable(QString("%1 workers: mean staleness %2").arg(workers).arg(mean)));
        }
    }

    void stragglerPushesLess() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        RunConfig config = psConfig(2, ParameterServerMode::Async);
        // Compute-bound workers (a wide model, a large batch), so the speed factor, not the
        // coordinator, sets the pace.
        config.model.layers[0].units = 256;
        config.model.layers[1].units = 256;
        config.data.globalBatchSize = 120;
        config.strategy.workerSpeed = {1.0, 0.25};
        ParameterServerTrainer ps(config, data);
        for (int i = 0; i < 200; ++i) ps.step();
        QVERIFY2(ps.workerStatus(0).gradients > 1.8 * double(ps.workerStatus(1).gradients),  // 4x in theory
                 qPrintable(QString("%1 vs %2").arg(ps.workerStatus(0).gradients).arg(ps.workerStatus(1).gradients)));
    }

    void killedWorkerTrainingCompletes() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        ParameterServerTrainer ps(psConfig(3, ParameterServerMode::Async), data);
        for (int i = 0; i < 30; ++i) ps.step();
        ps.killWorker(1);
        for (int i = 0; i < 70; ++i) QVERIFY(ps.step().applied);
        QCOMPARE(ps.stepsDone(), std::int64_t{100});
        QVERIFY(!ps.workerStatus(1).alive);
        const std::int64_t before = ps.workerStatus(1).gradients;
        for (int i = 0; i < 10; ++i) ps.step();
        QCOMPARE(ps.workerStatus(1).gradients, before);
        ps.killWorker(0);
        ps.killWorker(2);
        bool stopped = false;  // gradients pushed before the kill still apply; then training must stop
        for (int i = 0; i < 5 && !stopped; ++i) {
            try {
                ps.step();
            } catch (const TrainingError& error) {
                stopped = QString(error.what()).contains("every worker");
            }
        }
        QVERIFY(stopped);
    }

    void pausedWorkersDoNotHang() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        ParameterServerTrainer ps(psConfig(2, ParameterServerMode::Async), data);
        ps.step();
        ps.setWorkerPaused(0, true);
        ps.setWorkerPaused(1, true);
        for (int i = 0; i < 5; ++i) ps.step();  // drains what was in flight
        QElapsedTimer timer;
        timer.start();
        QVERIFY(!ps.step().applied);
        QVERIFY(timer.elapsed() < 1000);
        ps.setWorkerPaused(1, false);
        QVERIFY(ps.step().applied);
    }

    void lostServerStopsAndResumes() {
        QTemporaryDir dir;
        const std::string checkpoint = (dir.path() + "/ps.safetensors").toStdString();
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        const RunConfig config = psConfig(2, ParameterServerMode::Async);
        WorkerStatus atCheckpoint[2];
        {
            ParameterServerTrainer ps(config, data);
            for (int i = 0; i < 40; ++i) ps.step();
            QVERIFY(saveCheckpoint(ps, checkpoint).ok());
            for (int w = 0; w < 2; ++w) atCheckpoint[w] = ps.workerStatus(w);
            for (int i = 0; i < 5; ++i) ps.step();
            ps.killParameterServer(1);
            try {
                ps.step();
                QFAIL("a lost parameter server must stop training");
            } catch (const TrainingError& error) {
                QVERIFY2(QString(error.what()).contains("ps:1"), error.what());
            }
        }
        ParameterServerTrainer resumed(config, data);
        QVERIFY(resumeCheckpoint(resumed, checkpoint).ok());
        QCOMPARE(resumed.stepsDone(), std::int64_t{40});
        // The workers go on counting from the checkpoint's figures (40 updates between them).
        QCOMPARE(atCheckpoint[0].updates + atCheckpoint[1].updates, std::int64_t{40});
        for (int w = 0; w < 2; ++w) {
            const WorkerStatus status = resumed.workerStatus(w);
            QCOMPARE(status.updates, atCheckpoint[w].updates);
            // Pushed when saved: at least the applied ones, at most what had been pushed just after
            // (the workers go on computing while the coordinator writes the checkpoint).
            QVERIFY(status.gradients >= status.updates && status.gradients <= atCheckpoint[w].gradients);
        }
        while (resumed.stepsDone() < 100) resumed.step();
        QCOMPARE(resumed.stepsDone(), std::int64_t{100});
    }

    // The session's speed limit slows every worker alike: workers at 0.19, 0.5 and 1.0 push in
    // those ratios under a limit too (before, the session slept between updates, every worker's
    // gradient waited in the inbox, all pushed at one rate and staleness was exactly N - 1).
    void speedLimitKeepsTheWorkersSpeedRatios() {
        RunConfig config;
        config.seed = 4;
        config.model.layers = {{"dense", 8, Activation::Tanh, ""}, {"dense", 2, Activation::Linear, ""}};
        config.data.source = DataSource::Synthetic;
        config.data.kind = SyntheticKind::Circle;
        config.data.samples = 400;
        config.data.globalBatchSize = 10;
        config.strategy.type = StrategyKind::ParameterServer;
        config.strategy.workers = 3;
        config.strategy.parameterServers = 1;
        config.strategy.workerSpeed = {0.19, 0.5, 1.0};
        config.steps = 0;
        for (ParameterServerMode mode : {ParameterServerMode::Async, ParameterServerMode::Sync}) {
            config.strategy.mode = mode;
            const bool async = mode == ParameterServerMode::Async;
            SessionOptions options;
            options.evalIntervalSeconds = 60.0;
            TrainingSession session(config, options, nullptr);
            const double limit = 40.0;
            session.setSpeedLimit(limit);
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
            while (session.state() == SessionState::Loading && std::chrono::steady_clock::now() < deadline)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            QCOMPARE(session.state(), SessionState::Paused);
            ParameterServerControls* controls = session.parameterServerControls();
            QVERIFY(controls != nullptr);
            const auto started = std::chrono::steady_clock::now();
            session.play();
            std::this_thread::sleep_for(std::chrono::milliseconds(4000));
            session.pause();
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            QCOMPARE(controls->updateRateLimit(), limit);
            std::int64_t pushed[3];
            for (int w = 0; w < 3; ++w) pushed[w] = controls->workerStatus(w).gradients;
            const QString counts = QString("%1: pushed %2, %3, %4 in %5 s, %6 updates")
                                       .arg(async ? "async" : "sync")
                                       .arg(pushed[0])
                                       .arg(pushed[1])
                                       .arg(pushed[2])
                                       .arg(seconds, 0, 'f', 2)
                                       .arg(session.stepsDone());
            // The updates never outrun the limit.
            QVERIFY2(double(session.stepsDone()) <= limit * seconds * 1.1 + 3, qPrintable(counts));
            if (async) {
                // Full speed: one gradient every 3 / 40 s; the others 0.5 and 0.19 times as often.
                QVERIFY2(pushed[2] >= 25, qPrintable(counts));
                const double half = double(pushed[1]) / double(pushed[2]), slow = double(pushed[0]) / double(pushed[2]);
                QVERIFY2(std::abs(half - 0.5) <= 0.12, qPrintable(counts));
                QVERIFY2(std::abs(slow - 0.19) <= 0.08, qPrintable(counts));
            } else {
                // Synchronous: an update waits for the slowest worker, 1 / (40 × 0.19) s.
                QVERIFY2(session.stepsDone() >= 0.6 * limit * 0.19 * seconds, qPrintable(counts));
                QVERIFY2(session.stepsDone() <= 1.3 * limit * 0.19 * seconds + 2, qPrintable(counts));
            }
        }
    }

    void asyncCircleLearns() {
        RunConfig config;
        config.seed = 4;
        config.model.layers = {
            {"dense", 8, Activation::Tanh, ""}, {"dense", 8, Activation::Tanh, ""}, {"dense", 2, Activation::Linear, ""}};
        config.data.source = DataSource::Synthetic;
        config.data.kind = SyntheticKind::Circle;
        config.data.samples = 500;
        config.data.noise = 0.1;
        config.data.globalBatchSize = 10;
        config.optimizer.learningRate = 0.1;
        config.strategy.type = StrategyKind::ParameterServer;
        config.strategy.workers = 4;
        config.strategy.parameterServers = 2;
        auto trainer = Trainer::create(config);
        QVERIFY2(trainer.ok(), trainer.ok() ? "" : trainer.error().message.c_str());
        for (int i = 0; i < 2000; ++i) (*trainer)->step();
        const EvalResult test = (*trainer)->evaluate((*trainer)->data().test);
        QVERIFY2(test.accuracy >= 0.9, qPrintable(QString::number(test.accuracy)));
    }

    void theCoordinatorsTeamIsScoped() {
        // The coordinator's passes (steps, evaluation) run on a team of the cores the workers
        // leave; the calling thread's own team (a study's thread runs other variants after this
        // one) is what it was before. (The engine is built with OpenMP; this test is not, so it
        // calls the runtime's functions directly.)
        QCOMPARE(ParameterServerTrainer::coordinatorThreads(2, 2), 1);
        QCOMPARE(ParameterServerTrainer::coordinatorThreads(2, 4), 1);
        QCOMPARE(ParameterServerTrainer::coordinatorThreads(8, 2), 6);
        const int before = omp_get_max_threads();
        omp_set_num_threads(3);
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        ParameterServerTrainer ps(psConfig(2, ParameterServerMode::Sync), data);
        for (int i = 0; i < 5; ++i) ps.step();
        QCOMPARE(omp_get_max_threads(), 3);
        (void)ps.evaluate(data.test);
        QCOMPARE(omp_get_max_threads(), 3);
        omp_set_num_threads(before);
    }
};

QTEST_APPLESS_MAIN(TestParameterServer)
#include "test_parameter_server.moc"
