#include "distlab/data/batch_sampler.hpp"

#include <numeric>

#include "distlab/core/rng.hpp"

namespace distlab {

BatchSampler::BatchSampler(std::int64_t datasetSize, std::int64_t globalBatchSize, bool shuffle, std::uint64_t seed)
    : m_size(datasetSize), m_batch(globalBatchSize), m_shuffle(shuffle), m_seed(seed), m_order(static_cast<std::size_t>(datasetSize)) {
    startEpoch(0);
}

void BatchSampler::startEpoch(std::int64_t epoch) {
    m_epoch = epoch;
    m_cursor = 0;
    std::iota(m_order.begin(), m_order.end(), std::int64_t{0});
    if (!m_shuffle) return;
    // Each epoch's order depends only on (seed, epoch), so a checkpoint needs just the position.
    Rng rng(Rng::derive(m_seed, 0x5348554646ull + static_cast<std::uint64_t>(epoch)));
    for (std::int64_t i = m_size - 1; i > 0; --i) {
        const auto j = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(i + 1)));
        std::swap(m_order[static_cast<std::size_t>(i)], m_order[static_cast<std::size_t>(j)]);
    }
}

std::span<const std::int64_t> BatchSampler::next() {
    if (m_cursor + m_batch > m_size) startEpoch(m_epoch + 1);
    std::span<const std::int64_t> batch(m_order.data() + m_cursor, static_cast<std::size_t>(m_batch));
    m_cursor += m_batch;
    return batch;
}

std::span<const std::int64_t> BatchSampler::shard(std::span<const std::int64_t> globalBatch, std::int64_t replica, std::int64_t replicas,
                                                  std::int64_t microStep, std::int64_t microSteps) {
    const auto perReplica = static_cast<std::int64_t>(globalBatch.size()) / replicas;
    const auto perMicroStep = perReplica / microSteps;
    return globalBatch.subspan(static_cast<std::size_t>(replica * perReplica + microStep * perMicroStep),
                               static_cast<std::size_t>(perMicroStep));
}

void BatchSampler::restore(std::int64_t epoch, std::int64_t cursor) {
    startEpoch(epoch);
    m_cursor = cursor;
}

}  // namespace distlab
