#pragma once
// A model's layers timed one at a time, as a step runs them: the step-time model's calibration
// (study/step_time_calibration.cpp) and a pipeline's stages balanced by measured time
// (distribute/pipeline_placement.cpp) both read these. Every time is the median of several blocks'
// means, each block long enough for the clock, so a stray interruption by another process moves
// one block, not the result.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "distlab/model/model.hpp"

namespace distlab {

/// Nanoseconds per call of `call`: the median over `blocks` blocks of at least `blockNs` each.
template <class Call>
double medianNsPerCall(Call&& call, std::int64_t blockNs = 200'000, int blocks = 5) {
    using Clock = std::chrono::steady_clock;
    const auto elapsedNs = [](Clock::time_point since) {
        return double(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - since).count());
    };
    const auto probeStart = Clock::now();
    call();
    const double once = std::max(1.0, elapsedNs(probeStart));
    const auto calls = static_cast<std::int64_t>(std::clamp(double(blockNs) / once, 1.0, 1e6));
    std::vector<double> means;
    for (int b = 0; b < blocks; ++b) {
        const auto start = Clock::now();
        for (std::int64_t i = 0; i < calls; ++i) call();
        means.push_back(elapsedNs(start) / double(calls));
    }
    std::nth_element(means.begin(), means.begin() + blocks / 2, means.end());
    return means[static_cast<std::size_t>(blocks / 2)];
}

/// Each layer's forward, timed alone on what it receives when `model` runs `input` (`context` holds
/// a forward of `input`). `beforeEach()` runs before each layer's timing (concurrent copies time
/// the same layer at the same moment).
template <class BeforeEach>
std::vector<double> timeLayerForwards(const Model& model, ConstTensorView input, ModelContext& context, BeforeEach&& beforeEach) {
    const auto& layers = model.layers();
    std::vector<double> ns(layers.size());
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const ConstTensorView received = i == 0 ? input : context.layers[i - 1]->output.view();
        beforeEach();
        ns[i] = medianNsPerCall([&] { layers[i]->forward(received, *context.layers[i]); });
    }
    return ns;
}

/// Each layer's part of backward (Model::backwardLayer, as a step's first backward runs it:
/// gradients written, not added), last layer first, timed alone; `gradOutput` is d(loss)/d(output)
/// of the forward `context` holds. Each layer's output gradient is the one the layer after it
/// computed. `beforeEach()` as timeLayerForwards'.
template <class BeforeEach>
std::vector<double> timeLayerBackwards(Model& model, ConstTensorView input, const Tensor& gradOutput, ModelContext& context,
                                       BeforeEach&& beforeEach) {
    const std::size_t count = model.layers().size();
    std::vector<double> ns(count);
    for (std::size_t i = count; i-- > 0;) {
        const ConstTensorView received = i == 0 ? input : context.layers[i - 1]->output.view();
        const Tensor& gradient = i + 1 == count ? gradOutput : context.layers[i + 1]->gradInput;
        context.layers[i]->overwriteGradients = true;
        beforeEach();
        ns[i] = medianNsPerCall([&] { model.backwardLayer(i, received, gradient, context); });
    }
    return ns;
}

}  // namespace distlab
