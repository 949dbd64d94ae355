#include "distribute/model_evaluation.hpp"

#include <algorithm>

#include "distlab/distribute/trainer.hpp"

namespace distlab {

EvalResult evaluateModel(const Model& model, const LossFunction& loss, const Dataset& data, std::int64_t maxExamples,
                         EvaluationBuffers& buffers) {
    EvalResult result;
    if (data.empty()) return result;
    const std::int64_t total = maxExamples > 0 ? std::min(maxExamples, data.count) : data.count;
    constexpr std::int64_t kChunk = 512;
    buffers.indices.resize(static_cast<std::size_t>(kChunk));
    double lossSum = 0.0;
    std::int64_t correct = 0;
    for (std::int64_t begin = 0; begin < total; begin += kChunk) {
        const std::int64_t rows = std::min(kChunk, total - begin);
        for (std::int64_t i = 0; i < rows; ++i) buffers.indices[static_cast<std::size_t>(i)] = begin + i;
        const ConstTensorView input = gatherBatch(
            data, std::span<const std::int64_t>(buffers.indices.data(), static_cast<std::size_t>(rows)), buffers.input, buffers.targets);
        const LossStats stats = loss.evaluate(model.forward(input, buffers.context), buffers.targets, 0.0f, buffers.grad);
        lossSum += stats.sum;
        correct += stats.correct;
    }
    result.examples = total;
    result.loss = lossSum / static_cast<double>(total);
    result.accuracy = data.isClassification() ? static_cast<double>(correct) / static_cast<double>(total) : -1.0;
    return result;
}

}  // namespace distlab
