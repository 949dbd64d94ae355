// TensorFlow Playground's 2-D data sets (src/dataset.ts of tensorflow/playground), generated from
// the run's seed. The Playground labels classes +1/-1; here they are 1/0. Its noise slider gives
// 0..0.5; `noise` takes 0..1 with the same formulas (the Gaussian variance extends linearly).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "data/data_sources.hpp"

namespace distlab::data {
namespace {

constexpr std::int64_t kMaxSamples = 50'000'000;

const char* kindName(SyntheticKind kind) {
    switch (kind) {
        case SyntheticKind::Circle:
            return "circle";
        case SyntheticKind::Xor:
            return "xor";
        case SyntheticKind::Gauss:
            return "gauss";
        case SyntheticKind::Spiral:
            return "spiral";
        case SyntheticKind::RegressionPlane:
            return "regression_plane";
        case SyntheticKind::RegressionGauss:
            return "regression_gauss";
    }
    return "?";
}

bool isRegression(SyntheticKind kind) { return kind == SyntheticKind::RegressionPlane || kind == SyntheticKind::RegressionGauss; }

/// Appends samples; `value` is a class (0/1) or a regression target.
class Builder {
public:
    Builder(Dataset& data, bool regression) : m_data(data), m_regression(regression) {}
    void add(double x, double y, double value) {
        m_data.x.push_back(static_cast<float>(x));
        m_data.x.push_back(static_cast<float>(y));
        if (m_regression)
            m_data.targets.push_back(static_cast<float>(value));
        else
            m_data.labels.push_back(value > 0 ? 1 : 0);
        ++m_data.count;
    }

private:
    Dataset& m_data;
    bool m_regression;
};

void circle(Builder& out, std::int64_t n, double noise, Rng& rng) {
    constexpr double kRadius = 5.0;
    auto generate = [&](std::int64_t count, double rMin, double rMax) {
        for (std::int64_t i = 0; i < count; ++i) {
            const double r = rng.uniform(rMin, rMax);
            const double angle = rng.uniform(0.0, 2.0 * std::numbers::pi);
            const double x = r * std::sin(angle);
            const double y = r * std::cos(angle);
            const double noiseX = rng.uniform(-kRadius, kRadius) * noise;
            const double noiseY = rng.uniform(-kRadius, kRadius) * noise;
            // The label follows the noisy point, so noise flips labels near the boundary.
            out.add(x, y, std::hypot(x + noiseX, y + noiseY) < kRadius * 0.5 ? 1.0 : 0.0);
        }
    };
    generate(n - n / 2, 0.0, kRadius * 0.5);  // positive points inside the circle
    generate(n / 2, kRadius * 0.7, kRadius);  // negative points in the ring outside it
}

void xorSet(Builder& out, std::int64_t n, double noise, Rng& rng) {
    constexpr double kPadding = 0.3;
    for (std::int64_t i = 0; i < n; ++i) {
        double x = rng.uniform(-5.0, 5.0);
        x += x > 0 ? kPadding : -kPadding;
        double y = rng.uniform(-5.0, 5.0);
        y += y > 0 ? kPadding : -kPadding;
        const double noiseX = rng.uniform(-5.0, 5.0) * noise;
        const double noiseY = rng.uniform(-5.0, 5.0) * noise;
        out.add(x, y, (x + noiseX) * (y + noiseY) >= 0 ? 1.0 : 0.0);
    }
}

void gauss(Builder& out, std::int64_t n, double noise, Rng& rng) {
    // d3.scale.linear().domain([0, .5]).range([0.5, 4]) without clamping.
    const double variance = 0.5 + noise * (4.0 - 0.5) / 0.5;
    const double sigma = std::sqrt(variance);
    auto generate = [&](std::int64_t count, double cx, double cy, double label) {
        for (std::int64_t i = 0; i < count; ++i) {
            const double x = cx + sigma * rng.normal();
            const double y = cy + sigma * rng.normal();
            out.add(x, y, label);
        }
    };
    generate(n - n / 2, 2.0, 2.0, 1.0);
    generate(n / 2, -2.0, -2.0, 0.0);
}

void spiral(Builder& out, std::int64_t n, double noise, Rng& rng) {
    auto generate = [&](std::int64_t count, double deltaT, double label) {
        for (std::int64_t i = 0; i < count; ++i) {
            const double r = static_cast<double>(i) / static_cast<double>(count) * 5.0;
            const double t = 1.75 * static_cast<double>(i) / static_cast<double>(count) * 2.0 * std::numbers::pi + deltaT;
            const double x = r * std::sin(t) + rng.uniform(-1.0, 1.0) * noise;
            const double y = r * std::cos(t) + rng.uniform(-1.0, 1.0) * noise;
            out.add(x, y, label);
        }
    };
    generate(n - n / 2, 0.0, 1.0);
    generate(n / 2, std::numbers::pi, 0.0);
}

// d3 domain [-10, 10] -> range [-1, 1], unclamped as in the Playground: |x + y| reaches 12 (more with noise).
double planeTarget(double x, double y) { return (x + y) / 10.0; }

double gaussTarget(double x, double y) {
    constexpr double kCentres[6][3] = {{-4, 2.5, 1}, {0, 2.5, -1}, {4, 2.5, 1}, {-4, -2.5, -1}, {0, -2.5, 1}, {4, -2.5, -1}};
    double label = 0.0;
    for (const auto& c : kCentres) {
        // domain [0, 2] -> range [1, 0], clamped: the bump of each Gaussian centre.
        const double scaled = std::clamp(1.0 - std::hypot(x - c[0], y - c[1]) / 2.0, 0.0, 1.0);
        const double candidate = c[2] * scaled;
        if (std::abs(candidate) > std::abs(label)) label = candidate;
    }
    return label;
}

void regression(Builder& out, std::int64_t n, double noise, Rng& rng, double (*target)(double, double)) {
    constexpr double kRadius = 6.0;
    for (std::int64_t i = 0; i < n; ++i) {
        const double x = rng.uniform(-kRadius, kRadius);
        const double y = rng.uniform(-kRadius, kRadius);
        const double noiseX = rng.uniform(-kRadius, kRadius) * noise;
        const double noiseY = rng.uniform(-kRadius, kRadius) * noise;
        out.add(x, y, target(x + noiseX, y + noiseY));
    }
}

void checkExpectations(SyntheticKind kind, const DataExpectations& expect) {
    const std::string name = kindName(kind);
    if (isRegression(kind)) {
        if (expect.classes > 0) {
            throw InputError("data.kind: " + name +
                             " is a regression set (1 float target per sample); use loss mse "
                             "with a last layer of 1 unit, or a classification kind (circle, xor, gauss, spiral)");
        }
        if (expect.outputs > 1) {
            throw InputError("data.kind: " + name + " has 1 target per sample but the model predicts " + std::to_string(expect.outputs) +
                             " outputs; give the last layer 1 unit");
        }
        return;
    }
    if (expect.outputs > 0) {
        throw InputError("data.kind: " + name + " is a classification set; use loss softmax_cross_entropy or a regression_* kind");
    }
    if (expect.classes == 1) {
        throw InputError("data.kind: " + name +
                         " has 2 classes (labels 0 and 1) but the model predicts 1 class; "
                         "give the last layer at least 2 units");
    }
}

}  // namespace

DataSplit makeSynthetic(const DataConfig& config, const DataExpectations& expect, std::uint64_t seed) {
    checkExpectations(config.kind, expect);
    requireRange("data.samples", config.samples, 1, kMaxSamples);
    if (!(config.noise >= 0.0 && config.noise <= 1.0)) {
        throw InputError("data.noise: must be in [0, 1] (got " + std::to_string(config.noise) + ")");
    }
    if (!(config.trainFraction > 0.0 && config.trainFraction <= 1.0)) {
        throw InputError("data.train_fraction: must be in (0, 1] (got " + std::to_string(config.trainFraction) + ")");
    }
    // The epsilon keeps 0.29 * 100 from flooring to 28.
    const auto trainCount = static_cast<std::int64_t>(std::floor(static_cast<double>(config.samples) * config.trainFraction + 1e-9));
    if (trainCount < 1) {
        throw InputError("data.train_fraction: " + std::to_string(config.trainFraction) + " of " + std::to_string(config.samples) +
                         " samples leaves no training sample");
    }

    const bool regressionKind = isRegression(config.kind);
    Dataset all;
    all.features = 2;
    all.classes = regressionKind ? 0 : (expect.classes > 0 ? expect.classes : 2);
    all.outputs = regressionKind ? 1 : 0;
    all.x.reserve(static_cast<std::size_t>(config.samples) * 2);
    if (!regressionKind)
        all.labels.reserve(static_cast<std::size_t>(config.samples));
    else
        all.targets.reserve(static_cast<std::size_t>(config.samples));

    Builder out(all, regressionKind);
    Rng rng(Rng::derive(seed, 0x53594e5448ull));  // "SYNTH"
    const std::int64_t n = config.samples;
    switch (config.kind) {
        case SyntheticKind::Circle:
            circle(out, n, config.noise, rng);
            break;
        case SyntheticKind::Xor:
            xorSet(out, n, config.noise, rng);
            break;
        case SyntheticKind::Gauss:
            gauss(out, n, config.noise, rng);
            break;
        case SyntheticKind::Spiral:
            spiral(out, n, config.noise, rng);
            break;
        case SyntheticKind::RegressionPlane:
            regression(out, n, config.noise, rng, planeTarget);
            break;
        case SyntheticKind::RegressionGauss:
            regression(out, n, config.noise, rng, gaussTarget);
            break;
    }
    // Like the Playground: shuffle once after generating, then the first part trains.
    Rng splitRng(Rng::derive(seed, 0x53504c4954ull));  // "SPLIT"
    return shuffleAndSplit(all, trainCount, splitRng);
}

}  // namespace distlab::data
