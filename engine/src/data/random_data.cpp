// Random data for benchmarks, where only the shapes matter: Gaussian features, uniform class labels
// (or Gaussian regression targets), all from the seed. No test split.
#include <string>

#include "data/data_sources.hpp"

namespace distlab::data {
namespace {

constexpr std::int64_t kMaxValues = std::int64_t{1} << 30;  // 4 GiB of floats

void checkExpectations(const DataConfig& config, const DataExpectations& expect) {
    if (expect.classes > 0) {
        if (config.outputs > 0) {
            throw InputError("data.outputs: is " + std::to_string(config.outputs) +
                             " (regression targets) but the model's loss is softmax_cross_entropy; set it to 0");
        }
        if (config.classes > expect.classes) {
            throw InputError("data.classes: " + std::to_string(config.classes) + " classes, but the model predicts only " +
                             std::to_string(expect.classes));
        }
    } else if (expect.outputs > 0 && config.outputs != expect.outputs) {
        throw InputError("data.outputs: is " + std::to_string(config.outputs) + " but the model (loss mse) predicts " +
                         std::to_string(expect.outputs) + " outputs per sample; set it to " + std::to_string(expect.outputs));
    }
}

}  // namespace

DataSplit makeRandom(const DataConfig& config, const DataExpectations& expect, std::uint64_t seed) {
    checkExpectations(config, expect);
    requireRange("data.samples", config.samples, 1, kMaxValues);
    requireRange("data.features", config.features, 1, kMaxValues);
    const bool regression = config.outputs > 0;
    if (regression)
        requireRange("data.outputs", config.outputs, 1, kMaxValues);
    else
        requireRange("data.classes", config.classes, 1, kMaxValues);
    const std::int64_t perSample = config.features + (regression ? config.outputs : 0);
    if (config.samples > kMaxValues / perSample) {
        throw InputError("data.samples: " + std::to_string(config.samples) + " samples of " + std::to_string(perSample) +
                         " values are too many (at most " + std::to_string(kMaxValues) + " values)");
    }

    DataSplit split;
    Dataset& train = split.train;
    train.count = config.samples;
    train.features = config.features;
    train.classes = regression ? 0 : (expect.classes > 0 ? expect.classes : config.classes);
    train.outputs = regression ? config.outputs : 0;
    train.x.resize(static_cast<std::size_t>(config.samples * config.features));
    Rng rng(Rng::derive(seed, 0x52414e444f4dull));  // "RANDOM"
    for (float& value : train.x) value = static_cast<float>(rng.normal());
    if (regression) {
        train.targets.resize(static_cast<std::size_t>(config.samples * config.outputs));
        for (float& value : train.targets) value = static_cast<float>(rng.normal());
    } else {
        train.labels.resize(static_cast<std::size_t>(config.samples));
        const auto classes = static_cast<std::uint64_t>(config.classes);
        for (auto& label : train.labels) label = static_cast<std::int32_t>(rng.below(classes));
    }
    split.test = emptyLike(train);
    return split;
}

}  // namespace distlab::data
