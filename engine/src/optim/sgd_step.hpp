#pragma once
// SGD's step for one value, value - rate * gradient, written once for the two places that apply
// it: the optimizer's pass (Sgd::update) and the weight-gradient products that apply it to each
// output as it is finished (packedSgdStep, for a lone replica's plain SGD). Both must give the
// same bits, so the rounding is stated rather than left to the compiler, which contracts the
// expression into one FMA or not depending on the optimisation level. Engine sources only: its
// value follows the engine's compile flags (-march), which other targets need not share.
#include <cmath>
#include <cstdint>
#include <span>

#include "optim/update_blocks.hpp"

namespace distlab {

/// True where the build targets FMA: the step is then rounded once (an FMA, as the products'
/// vector epilogues compute it); elsewhere product and difference are rounded apart, and no
/// product applies the step (fusedSgdStepAvailable is false).
#ifdef __FMA__
inline constexpr bool kSgdStepRoundsOnce = true;
#else
inline constexpr bool kSgdStepRoundsOnce = false;
#endif

inline float sgdStep(float value, float gradient, float rate) {
    if constexpr (kSgdStepRoundsOnce)
        return std::fma(-rate, gradient, value);
    else
        return value - rate * gradient;
}

/// params[i] = sgdStep(params[i], grads[i], rate) over a whole buffer, split across the team as
/// every optimizer pass is (forEachUpdateBlock, which with blockSums also reads each block's Σ g²).
/// `key` names the pass for the team's learned split.
inline void sgdPass(std::uint64_t key, std::span<float> params, std::span<const float> grads, float rate, std::span<double> blockSums) {
    float* p = params.data();
    const float* g = grads.data();
    forEachUpdateBlock(key, grads, blockSums, [=](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) p[i] = sgdStep(p[i], g[i], rate);
    });
}

}  // namespace distlab
