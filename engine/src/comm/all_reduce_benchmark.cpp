#include "distlab/comm/all_reduce_benchmark.hpp"

#include <array>
#include <thread>

#include "distlab/comm/spin_barrier.hpp"

namespace distlab {

namespace {

// Rank r's element i: a small integer, so sums of up to thousands of ranks stay exact in float.
float fillValue(int rank, long long i) { return static_cast<float>((i * 7 + rank * 3LL) % 17 - 8); }

// Wrong counts travel as floats, split in 16-bit halves: each half's sum over 64 ranks stays below
// 2^24, so the total is exact however many elements were wrong.
constexpr long long kHalf = 1LL << 16;

}  // namespace

AllReduceMeasurement measureAllReduceRank(Communicator& comm, std::span<float> buffer, ReduceOp op, long long warmup, long long iters) {
    const int n = comm.size();
    const int rank = comm.rank();
    const auto elements = static_cast<long long>(buffer.size());
    std::array<float, 17> expected{};  // element i's result depends on i % 17 only
    for (int k = 0; k < 17; ++k) {
        long long sum = 0;
        for (int r = 0; r < n; ++r) sum += static_cast<long long>(fillValue(r, k));
        expected[static_cast<std::size_t>(k)] =
            op == ReduceOp::Mean ? static_cast<float>(sum) / static_cast<float>(n) : static_cast<float>(sum);
    }
    long long wrong = 0;
    auto checked = [&] {
        for (long long i = 0; i < elements; ++i) buffer[static_cast<std::size_t>(i)] = fillValue(rank, i);
        comm.allReduce(buffer, op).wait();
        for (long long i = 0; i < elements; ++i)
            if (buffer[static_cast<std::size_t>(i)] != expected[static_cast<std::size_t>(i % 17)]) ++wrong;
    };
    checked();
    for (long long w = 0; w < warmup; ++w) comm.allReduce(buffer, op).wait();
    comm.barrier().wait();
    const std::int64_t start = nowNs();
    for (long long k = 0; k < iters; ++k) comm.allReduce(buffer, op).wait();
    const std::int64_t elapsedNs = nowNs() - start;
    checked();

    // Microseconds in a float keep 7 significant digits: finer than any run's noise.
    std::array<float, 1> slowestUs{static_cast<float>(static_cast<double>(elapsedNs) / 1e3)};
    comm.allReduce(slowestUs, ReduceOp::Max).wait();
    const long long high = wrong / kHalf, low = wrong % kHalf;
    std::array<float, 2> wrongHalves{static_cast<float>(high), static_cast<float>(low)};
    comm.allReduce(wrongHalves, ReduceOp::Sum).wait();

    AllReduceMeasurement row;
    row.elements = elements;
    row.bytes = elements * static_cast<long long>(sizeof(float));
    row.timeUs = static_cast<double>(slowestUs[0]) / static_cast<double>(iters);
    row.algbwGbps = row.timeUs > 0 ? static_cast<double>(row.bytes) / (row.timeUs * 1e3) : 0.0;
    row.busbwGbps = row.algbwGbps * 2.0 * (n - 1) / n;
    row.wrong = static_cast<long long>(wrongHalves[0]) * kHalf + static_cast<long long>(wrongHalves[1]);
    return row;
}

AllReduceMeasurement measureAllReduce(InProcessGroup& group, std::vector<AlignedVector<float>>& buffers, long long elements, ReduceOp op,
                                      long long warmup, long long iters) {
    auto rankMain = [&](int rank) {
        std::span<float> buffer(buffers[static_cast<std::size_t>(rank)].data(), static_cast<std::size_t>(elements));
        return measureAllReduceRank(group.communicator(rank), buffer, op, warmup, iters);
    };
    std::vector<std::thread> threads;
    for (int r = 1; r < group.size(); ++r) threads.emplace_back(rankMain, r);
    const AllReduceMeasurement row = rankMain(0);  // every rank returns the same
    for (std::thread& thread : threads) thread.join();
    return row;
}

}  // namespace distlab
