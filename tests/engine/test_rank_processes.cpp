// A rank needs nothing but its Communicator: two MirroredRanks in two processes (no shared memory
// at all), talking through a socket, end with exactly the weights and losses of MirroredTrainer's
// two ranks on threads. With two ranks every algorithm's sum is a + b, and float addition
// commutes, so "exactly" means bit for bit.
#include <QtTest>

#include <omp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <stdexcept>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/distribute/mirrored_rank.hpp"
#include "trainer_fixtures.hpp"

using namespace distlab;
using namespace distlab::testing;

namespace {

void writeAll(int fd, const void* data, std::size_t bytes) {
    const auto* p = static_cast<const char*>(data);
    while (bytes > 0) {
        const ssize_t n = ::write(fd, p, bytes);
        if (n <= 0) throw std::runtime_error("socket write failed");
        p += n;
        bytes -= static_cast<std::size_t>(n);
    }
}

void readAll(int fd, void* data, std::size_t bytes) {
    auto* p = static_cast<char*>(data);
    while (bytes > 0) {
        const ssize_t n = ::read(fd, p, bytes);
        if (n <= 0) throw std::runtime_error("socket read failed");
        p += n;
        bytes -= static_cast<std::size_t>(n);
    }
}

/// A two-rank communicator over a connected socket: what a rank in another process would use.
/// Its all-reduce is asynchronous, as a network or GPU backend's is: the call starts a thread
/// that moves and sums the values and returns a Work in flight, so the rank must wait() before it
/// reads the buffer. Only the calls a mirrored rank makes are implemented; the others say so.
class SocketCommunicator final : public Communicator {
public:
    SocketCommunicator(int rank, int fd) : m_rank(rank), m_fd(fd) {}
    int rank() const override { return m_rank; }
    int size() const override { return 2; }

    Work allReduce(std::span<float> buffer, const AllReduceOptions& options) override {
        auto state = std::make_unique<ThreadWork>();
        ThreadWork& work = *state;
        work.thread = std::thread([this, buffer, options, &work] {
            CollectiveTiming timing;
            timing.startNs = nowNs();
            for (const std::span<float> values : {buffer, options.companion}) {
                std::vector<float> peer(values.size());
                exchange(values, peer);
                for (std::size_t i = 0; i < values.size(); ++i) {
                    values[i] += peer[i];
                    if (options.op == ReduceOp::Mean) values[i] /= 2.0f;
                }
                timing.bytesSent += static_cast<std::int64_t>(values.size_bytes());
            }
            timing.bytesReceived = timing.bytesSent;
            timing.endNs = nowNs();
            work.timing = timing;
            work.finished.store(true, std::memory_order_release);
        });
        ++m_asynchronousCalls;
        return Work(std::move(state));
    }
    Work broadcast(std::span<float> buffer, int root) override {
        CollectiveTiming timing;
        timing.startNs = nowNs();
        if (m_rank == root) {
            writeAll(m_fd, buffer.data(), buffer.size_bytes());
            timing.bytesSent = static_cast<std::int64_t>(buffer.size_bytes());
        } else {
            readAll(m_fd, buffer.data(), buffer.size_bytes());
            timing.bytesReceived = static_cast<std::int64_t>(buffer.size_bytes());
        }
        timing.endNs = nowNs();
        return timing;
    }
    Work reduce(std::span<float>, int, ReduceOp) override { throw std::logic_error("reduce: not used"); }
    Work allGather(std::span<const float>, std::span<float>) override { throw std::logic_error("allGather: not used"); }
    Work reduceScatter(std::span<const float>, std::span<float>, ReduceOp) override { throw std::logic_error("reduceScatter: not used"); }
    Work send(std::span<const float>, int) override { throw std::logic_error("send: not used"); }
    Work recv(std::span<float>, int) override { throw std::logic_error("recv: not used"); }
    Work barrier() override { throw std::logic_error("barrier: not used"); }
    void setTrace(CollectiveTrace*) override {}
    /// All-reduces that returned a Work in flight.
    int asynchronousCalls() const { return m_asynchronousCalls; }

private:
    struct ThreadWork final : WorkState {
        std::thread thread;
        std::atomic<bool> finished{false};
        CollectiveTiming timing;
        ~ThreadWork() override {
            if (thread.joinable()) thread.join();
        }
        bool done() override { return finished.load(std::memory_order_acquire); }
        CollectiveTiming wait() override {
            if (thread.joinable()) thread.join();
            return timing;
        }
    };

    /// Rank 0 sends first, rank 1 receives first: no deadlock on a full socket buffer.
    void exchange(std::span<const float> mine, std::span<float> theirs) {
        if (m_rank == 0) {
            writeAll(m_fd, mine.data(), mine.size_bytes());
            readAll(m_fd, theirs.data(), theirs.size_bytes());
        } else {
            readAll(m_fd, theirs.data(), theirs.size_bytes());
            writeAll(m_fd, mine.data(), mine.size_bytes());
        }
    }
    int m_rank;
    int m_fd;
    int m_asynchronousCalls = 0;
};

constexpr int kSteps = 30;

RunConfig twoRankConfig() {
    RunConfig config = smallConfig(2, CrossDeviceOps::Ring, OptimizerKind::Adam, 0.0, 2);  // with accumulation
    config.threads = 2;
    return config;
}

/// Trains rank `rank` for kSteps over the socket; returns the step losses.
std::vector<double> trainRank(int rank, int fd, const RunConfig& config, const DataSplit& data, std::vector<float>& weights) {
    omp_set_num_threads(1);
    SocketCommunicator communicator(rank, fd);
    const DeviceMemoryScope memory(rank);
    MirroredRank self(config, data.train.features, communicator, nowNs());
    if (rank == 0) self.model().initialize(config.model.init, config.seed);
    self.broadcastParameters();
    BatchSampler sampler(data.train.count, config.data.globalBatchSize, config.data.shuffle, config.seed);
    std::vector<double> losses;
    for (int step = 0; step < kSteps; ++step) {
        self.step(data.train, sampler.next(), static_cast<float>(config.optimizer.learningRate));
        losses.push_back(self.global().lossSum / static_cast<double>(config.data.globalBatchSize));
    }
    const auto values = self.model().store().values();
    weights.assign(values.begin(), values.end());
    if (communicator.asynchronousCalls() < kSteps) throw std::logic_error("the all-reduces did not go through the socket");
    return losses;
}

}  // namespace

class TestRankProcesses : public QObject {
    Q_OBJECT
private slots:
    void twoProcessesReproduceTheMirroredTrainer() {
        const RunConfig config = twoRankConfig();
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        int sockets[2];
        QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sockets), 0);
        const pid_t child = ::fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            // Rank 1, in its own address space: trains, then sends its weights and losses home.
            ::close(sockets[0]);
            int status = 0;
            try {
                std::vector<float> weights;
                const std::vector<double> losses = trainRank(1, sockets[1], config, data, weights);
                const std::uint64_t count = weights.size();
                writeAll(sockets[1], &count, sizeof count);
                writeAll(sockets[1], weights.data(), weights.size() * sizeof(float));
                writeAll(sockets[1], losses.data(), losses.size() * sizeof(double));
            } catch (...) {
                status = 1;
            }
            ::_exit(status);
        }
        ::close(sockets[1]);
        std::vector<float> weights0, weights1;
        const std::vector<double> losses0 = trainRank(0, sockets[0], config, data, weights0);
        std::uint64_t count = 0;
        readAll(sockets[0], &count, sizeof count);
        QCOMPARE(count, std::uint64_t(weights0.size()));
        weights1.resize(count);
        std::vector<double> losses1(kSteps);
        readAll(sockets[0], weights1.data(), count * sizeof(float));
        readAll(sockets[0], losses1.data(), losses1.size() * sizeof(double));
        int status = -1;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        ::close(sockets[0]);

        // The same run on threads, through the in-process group.
        MirroredTrainer threads(config, data);
        std::vector<double> threadLosses;
        for (int step = 0; step < kSteps; ++step) threadLosses.push_back(threads.step().loss);
        for (int r = 0; r < 2; ++r) {
            const auto expected = threads.replicaModel(r).store().values();
            const std::vector<float>& actual = r == 0 ? weights0 : weights1;
            QVERIFY2(std::equal(expected.begin(), expected.end(), actual.begin()), qPrintable(QString("rank %1's weights").arg(r)));
        }
        QCOMPARE(losses0, threadLosses);
        QCOMPARE(losses1, threadLosses);
        // And training happened.
        MirroredTrainer fresh(config, data);
        QVERIFY(relativeError(fresh.replicaModel(0).store().values(), weights0) > 1e-3);
    }
};

QTEST_APPLESS_MAIN(TestRankProcesses)
#include "test_rank_processes.moc"
