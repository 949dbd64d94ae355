// A multi-worker rank's reduction overlapped with its backward pass (MirroredRank with
// overlapReduction, distribute/overlapped_reduction.hpp) against the same ranks reducing after
// backward, on 2 workers x 2 local replicas: in-process groups joined by Gloo on loopback, as
// distlab-worker builds them. The same weights bit for bit, packs reduced while backward still
// ran, and the network hop recorded by the workers' lead replicas only, within its all-reduce.
#include <QtTest>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "distlab/comm/hierarchical_communicator.hpp"
#include "distlab/comm/in_process_group.hpp"
#include "distlab/data/batch_sampler.hpp"
#include "distlab/distribute/mirrored_rank.hpp"
#include "distlab/tensor/device_memory.hpp"
#include "gloo_fixtures.hpp"
#include "trainer_fixtures.hpp"

using namespace distlab;
using namespace distlab::testing;

namespace {

constexpr int kWorkers = 2;
constexpr int kLocal = 2;
constexpr int kRanks = kWorkers * kLocal;
constexpr int kSteps = 12;
constexpr int kFeatures = 1024;

/// One worker's local replicas on threads and the workers joined by Gloo, as MirroredTrainer and
/// distlab-worker join them.
struct Hierarchy {
    std::vector<std::unique_ptr<comm_detail::GlooCommunicator>> across = connectGroup(kWorkers);
    std::vector<std::unique_ptr<InProcessGroup>> groups;
    std::vector<std::unique_ptr<HierarchicalCommunicator>> replicas;
    Hierarchy() {
        for (int w = 0; w < kWorkers; ++w) groups.push_back(std::make_unique<InProcessGroup>(kLocal, CrossDeviceOps::Ring));
        for (int w = 0; w < kWorkers; ++w)
            for (int l = 0; l < kLocal; ++l)
                replicas.push_back(std::make_unique<HierarchicalCommunicator>(groups[w]->communicator(l), *across[w]));
    }
};

/// Adam on a 1024 x 256 first layer over 60 rows a replica (its backward takes long enough to overlap), every parameter a
/// pack of its own (bytes_per_pack 1: 6 packs, the last layer's reduced first).
RunConfig overlapConfig() {
    RunConfig config = smallConfig(kLocal, CrossDeviceOps::Ring, OptimizerKind::Adam, 0.0, 1);
    config.model.layers = {{"dense", 256, Activation::Tanh, ""}, {"dense", 32, Activation::Relu, ""}, {"dense", 3, Activation::Linear, ""}};
    config.strategy.bytesPerPack = 1;
    config.data.globalBatchSize = 240;  // 60 rows a replica
    config.threads = 1;
    return config;
}

struct RankRun {
    std::vector<float> weights;
    std::vector<double> losses;
    int overlappedSteps = 0;  ///< steps in which an all-reduce began before backward ended
    int networkSpans = 0;
    bool networkWithinAllReduce = true;
    std::int64_t networkBytes = 0;
};

std::vector<RankRun> train(Hierarchy& hierarchy, const RunConfig& config, const DataSplit& data, bool overlap) {
    std::vector<RankRun> runs(kRanks);
    onEveryRank(kRanks, [&](int r) {
        const DeviceMemoryScope memory(r % kLocal);
        MirroredRank self(config, data.train.features, *hierarchy.replicas[r], nowNs(), overlap);
        if (r == 0) self.model().initialize(config.model.init, config.seed);
        self.broadcastParameters();
        BatchSampler sampler(data.train.count, config.data.globalBatchSize, config.data.shuffle, config.seed);
        RankRun& run = runs[r];
        for (int step = 0; step < kSteps; ++step) {
            self.step(data.train, sampler.next(), static_cast<float>(config.optimizer.learningRate));
            run.losses.push_back(self.global().lossSum);
            std::int64_t backwardEnd = 0, firstReduce = std::numeric_limits<std::int64_t>::max();
            const auto spans = self.stats().spans;
            for (const Span& span : spans) {
                if (span.kind == SpanKind::Backward) backwardEnd = span.endNs;
                if (span.kind == SpanKind::AllReduce) firstReduce = std::min(firstReduce, span.beginNs);
                if (span.kind != SpanKind::Network) continue;
                ++run.networkSpans;
                run.networkBytes += span.bytes;
                const bool within = std::any_of(spans.begin(), spans.end(), [&](const Span& reduce) {
                    return reduce.kind == SpanKind::AllReduce && reduce.pack == span.pack && reduce.beginNs <= span.beginNs &&
                           span.endNs <= reduce.endNs;
                });
                run.networkWithinAllReduce = run.networkWithinAllReduce && within;
            }
            if (firstReduce < backwardEnd) ++run.overlappedSteps;
        }
        const auto values = self.model().store().values();
        run.weights.assign(values.begin(), values.end());
    });
    return runs;
}

}  // namespace

class TestOverlappedReduction : public QObject {
    Q_OBJECT
private slots:
    void overlappedEqualsSerialBitForBit() {
        const RunConfig config = overlapConfig();
        const DataSplit data = makeClassificationData(960, kFeatures, 3, 5);
        Hierarchy hierarchy;
        const std::vector<RankRun> serial = train(hierarchy, config, data, false);
        const std::vector<RankRun> overlapped = train(hierarchy, config, data, true);
        for (int r = 0; r < kRanks; ++r) {
            QCOMPARE(overlapped[r].weights.size(), serial[r].weights.size());
            QVERIFY2(std::memcmp(overlapped[r].weights.data(), serial[r].weights.data(), serial[r].weights.size() * sizeof(float)) == 0,
                     qPrintable(QString("rank %1's weights differ").arg(r)));
            QCOMPARE(overlapped[r].losses, serial[r].losses);  // the figures on the last pack, reduced first
            QVERIFY(std::memcmp(overlapped[r].weights.data(), serial[0].weights.data(), serial[0].weights.size() * sizeof(float)) == 0);
            QCOMPARE(serial[r].overlappedSteps, 0);
        }
        // It trained (the run is not a no-op that trivially agrees).
        QVERIFY(serial[0].losses.back() < serial[0].losses.front());
        // The lead of each worker started reducing the last layers' packs while backward was still
        // on the first layer: in most steps; in one at least (a loaded machine may not run the
        // reduction thread at once).
        for (const int lead : {0, 2}) QVERIFY2(overlapped[lead].overlappedSteps >= 1, qPrintable(QString::number(lead)));
    }

    void theNetworkHopIsTheLeadsWithinItsAllReduce() {
        const RunConfig config = overlapConfig();
        const DataSplit data = makeClassificationData(960, kFeatures, 3, 5);
        Hierarchy hierarchy;
        // 1024·256 + 256 + 256·32 + 32 + 32·3 + 3 = 270,723 parameters in 6 packs, and the 3 figures
        // on the last: each step the lead sends all of them once to the other worker's lead.
        const std::int64_t bytesPerStep = (1024 * 256 + 256 + 256 * 32 + 32 + 32 * 3 + 3 + 3) * 4;
        for (const bool overlap : {false, true}) {
            const std::vector<RankRun> runs = train(hierarchy, config, data, overlap);
            for (int r = 0; r < kRanks; ++r) {
                const bool lead = r % kLocal == 0;
                QCOMPARE(runs[r].networkSpans, lead ? 6 * kSteps : 0);
                QCOMPARE(runs[r].networkBytes, lead ? bytesPerStep * kSteps : 0);
                QVERIFY2(runs[r].networkWithinAllReduce, qPrintable(QString("rank %1, overlap %2").arg(r).arg(overlap)));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestOverlappedReduction)
#include "test_overlapped_reduction.moc"
