#include "distribute/overlapped_reduction.hpp"

#include "distlab/tensor/reductions.hpp"

namespace distlab {

OverlappedReduction::OverlappedReduction(Communicator& communicator, int device, const Model& model, std::span<const PackRange> packs)
    : m_thread(communicator, device), m_model(model), m_packs(packs), m_works(packs.size()), m_timings(packs.size()) {}

void OverlappedReduction::begin(std::span<float> grads, std::span<float> figures) {
    m_grads = grads;
    m_figures = figures;
    m_unissued = m_packs.size();
    m_squaresBefore = 0.0;
}

void OverlappedReduction::lossKnown(const LossStats& total) {
    // float32 holds the counts exactly up to 2^24 and the loss sum to about 1e-7 of its value.
    m_figures[0] = static_cast<float>(total.sum);
    m_figures[1] = static_cast<float>(total.correct);
    m_figures[2] = static_cast<float>(total.count);
}

void OverlappedReduction::layerFinished(std::size_t layer) {
    const std::int64_t finishedFrom = m_model.gradientBegin(layer);
    while (m_unissued > 0 && m_packs[m_unissued - 1].begin >= finishedFrom) issue(--m_unissued);
}

void OverlappedReduction::issue(std::size_t pack) {
    const std::span<float> values =
        m_grads.subspan(static_cast<std::size_t>(m_packs[pack].begin), static_cast<std::size_t>(m_packs[pack].size()));
    m_squaresBefore += sumOfSquares(values);  // read before the thread owns the values
    AllReduceOptions options{ReduceOp::Sum, static_cast<int>(pack)};
    if (pack + 1 == m_packs.size()) options.companion = m_figures;
    m_works[pack] = m_thread.allReduce(values, options);
}

std::span<const CollectiveTiming> OverlappedReduction::finish() {
    while (m_unissued > 0) issue(--m_unissued);
    for (std::size_t pack = 0; pack < m_packs.size(); ++pack) m_timings[pack] = m_works[pack].wait();
    return m_timings;
}

}  // namespace distlab
