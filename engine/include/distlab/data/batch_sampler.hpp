#pragma once
// Global batches in dataset order (after a seeded per-epoch shuffle), and their per-replica shards
// exactly as docs/semantics.md §9 says: an epoch ends when fewer than G samples remain.
#include <cstdint>
#include <span>
#include <vector>

namespace distlab {

class BatchSampler {
public:
    /// datasetSize >= globalBatchSize > 0. Allocates the permutation once.
    BatchSampler(std::int64_t datasetSize, std::int64_t globalBatchSize, bool shuffle, std::uint64_t seed);

    /// The sample indices of the next global batch. Allocation-free; the span stays valid until
    /// the next call.
    std::span<const std::int64_t> next();

    /// Which shard of a global batch a replica's micro-step takes: replica i takes the i-th of N
    /// contiguous shards; micro-step m takes the m-th of k contiguous slices of that shard.
    static std::span<const std::int64_t> shard(std::span<const std::int64_t> globalBatch, std::int64_t replica, std::int64_t replicas,
                                               std::int64_t microStep, std::int64_t microSteps);

    std::int64_t epoch() const { return m_epoch; }    ///< 0-based epoch of the next batch
    std::int64_t cursor() const { return m_cursor; }  ///< position of the next batch in the epoch
    std::int64_t batchesPerEpoch() const { return m_size / m_batch; }
    /// Continues exactly where a sampler with the same arguments stood at (epoch, cursor).
    void restore(std::int64_t epoch, std::int64_t cursor);

private:
    void startEpoch(std::int64_t epoch);

    std::int64_t m_size;
    std::int64_t m_batch;
    bool m_shuffle;
    std::uint64_t m_seed;
    std::int64_t m_epoch = 0;
    std::int64_t m_cursor = 0;
    std::vector<std::int64_t> m_order;
};

}  // namespace distlab
