#pragma once
// A rank's gradient reduction overlapped with its backward pass, as PyTorch DDP's buckets are:
// each pack's all-reduce is issued on the rank's reduction thread as soon as backward has finished
// every layer the pack covers (the last pack first), and the update waits for each pack's Work.
// Each pack goes through the same call on the same values as without overlap (the step's figures
// still ride on the last pack), so every sum is taken in the same order and the bits are the same.
#include <cstddef>
#include <span>
#include <vector>

#include "comm/reduction_thread.hpp"
#include "distlab/comm/gradient_packer.hpp"
#include "distribute/replica_step.hpp"

namespace distlab {

class OverlappedReduction final : public GradientListener {
public:
    /// Packs of `model`'s gradient (they must outlive this), reduced through `communicator` on a
    /// thread of this reduction's own; `device` is the rank's.
    OverlappedReduction(Communicator& communicator, int device, const Model& model, std::span<const PackRange> packs);

    /// Starts a step: backward is about to write `grads`; the step's loss sum, correct and examples
    /// go into `figures` (3 values), which ride on the last pack. The rank's thread.
    void begin(std::span<float> grads, std::span<float> figures);
    void lossKnown(const LossStats& total) override;
    /// Issues every pack that lies wholly in layers backward has finished.
    void layerFinished(std::size_t layer) override;
    /// Issues what is left (nothing after a whole backward), waits for every pack and returns
    /// their records in pack order (steady-clock times). Rethrows a failed pack's error.
    std::span<const CollectiveTiming> finish();
    /// The gradient's squared L2 norm before the reduction, summed pack by pack as each was issued.
    double squaresBefore() const { return m_squaresBefore; }

private:
    void issue(std::size_t pack);

    comm_detail::ReductionThread m_thread;
    const Model& m_model;
    std::span<const PackRange> m_packs;
    std::span<float> m_grads;
    std::span<float> m_figures;
    std::vector<Work> m_works;                ///< each pack's all-reduce in flight
    std::vector<CollectiveTiming> m_timings;  ///< and its record once done
    std::size_t m_unissued = 0;               ///< packs [0, m_unissued) are not issued yet
    double m_squaresBefore = 0.0;
};

}  // namespace distlab
