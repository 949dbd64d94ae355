#include "distlab/comm/all_reduce_benchmark.hpp"

#include <algorithm>
#include <span>
#include <thread>

#include "distlab/comm/spin_barrier.hpp"

namespace distlab {

namespace {

// Rank r's element i: a small integer, so sums of up to thousands of ranks stay exact in float.
float fillValue(int rank, long long i) { return static_cast<float>((i * 7 + rank * 3LL) % 17 - 8); }

}  // namespace

AllReduceMeasurement measureAllReduce(InProcessGroup& group, std::vector<AlignedVector<float>>& buffers, long long elements, ReduceOp op,
                                      long long warmup, long long iters) {
    const int n = group.size();
    std::vector<long long> wrong(static_cast<std::size_t>(n), 0), elapsedNs(static_cast<std::size_t>(n), 0);
    float expected[17];  // element i's result depends on i % 17 only
    for (int k = 0; k < 17; ++k) {
        long long sum = 0;
        for (int r = 0; r < n; ++r) sum += static_cast<long long>(fillValue(r, k));
        expected[k] = op == ReduceOp::Mean ? static_cast<float>(sum) / static_cast<float>(n) : static_cast<float>(sum);
    }
    auto rankMain = [&](int rank) {
        Communicator& comm = group.communicator(rank);
        const std::span<float> buffer(buffers[static_cast<std::size_t>(rank)].data(), static_cast<std::size_t>(elements));
        auto checked = [&] {
            for (long long i = 0; i < elements; ++i) buffer[static_cast<std::size_t>(i)] = fillValue(rank, i);
            comm.allReduce(buffer, op).wait();
            for (long long i = 0; i < elements; ++i)
                if (buffer[static_cast<std::size_t>(i)] != expected[i % 17]) ++wrong[static_cast<std::size_t>(rank)];
        };
        checked();
        for (long long w = 0; w < warmup; ++w) comm.allReduce(buffer, op).wait();
        comm.barrier().wait();
        const std::int64_t start = nowNs();
        for (long long k = 0; k < iters; ++k) comm.allReduce(buffer, op).wait();
        elapsedNs[static_cast<std::size_t>(rank)] = nowNs() - start;
        checked();
    };
    std::vector<std::thread> threads;
    for (int r = 1; r < n; ++r) threads.emplace_back(rankMain, r);
    rankMain(0);
    for (std::thread& thread : threads) thread.join();

    AllReduceMeasurement row;
    row.elements = elements;
    row.bytes = elements * static_cast<long long>(sizeof(float));
    row.timeUs = static_cast<double>(*std::max_element(elapsedNs.begin(), elapsedNs.end())) / 1e3 / static_cast<double>(iters);
    row.algbwGbps = row.timeUs > 0 ? static_cast<double>(row.bytes) / (row.timeUs * 1e3) : 0.0;
    row.busbwGbps = row.algbwGbps * 2.0 * (n - 1) / n;
    for (long long w : wrong) row.wrong += w;
    return row;
}

}  // namespace distlab
