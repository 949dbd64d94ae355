#include "distlab/telemetry/data_points.hpp"

#include <algorithm>
#include <cstdint>

namespace distlab {

namespace {

void sample(const Dataset& set, std::vector<float>& xy, std::vector<float>& values) {
    const std::int64_t count = std::min<std::int64_t>(set.count, static_cast<std::int64_t>(DataPoints::kMaxPoints));
    const std::int64_t stride = std::max<std::int64_t>(1, set.count / std::max<std::int64_t>(1, count));
    for (std::int64_t i = 0; i < set.count && static_cast<std::int64_t>(values.size()) < count; i += stride) {
        const auto row = static_cast<std::size_t>(i);
        xy.push_back(set.x[row * 2]);
        xy.push_back(set.x[row * 2 + 1]);
        values.push_back(set.isClassification() ? static_cast<float>(set.labels[row])
                                                : (set.targets.empty() ? 0.0f : set.targets[row * static_cast<std::size_t>(set.outputs)]));
    }
}

}  // namespace

DataPoints sampleDataPoints(const DataSplit& data) {
    DataPoints points;
    if (data.train.features != 2) return points;
    points.classification = data.train.isClassification();
    sample(data.train, points.train, points.trainValue);
    sample(data.test, points.test, points.testValue);
    return points;
}

}  // namespace distlab
