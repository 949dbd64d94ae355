// The step-time model's pure formulas (step_time_model.hpp): from measured pieces to a step. No
// clock, no I/O; tests feed them made-up calibrations.
#include <algorithm>
#include <cmath>
#include <iterator>

#include "distlab/study/step_time_model.hpp"

namespace distlab {

AlphaBeta fitAlphaBeta(std::span<const std::pair<double, double>> points) {
    if (points.empty()) return {};
    double meanX = 0, meanY = 0;
    for (const auto& [x, y] : points) {
        meanX += x;
        meanY += y;
    }
    meanX /= double(points.size());
    meanY /= double(points.size());
    double sxx = 0, sxy = 0;
    for (const auto& [x, y] : points) {
        sxx += (x - meanX) * (x - meanX);
        sxy += (x - meanX) * (y - meanY);
    }
    AlphaBeta fit;
    fit.betaNsPerByte = sxx > 0 ? std::max(0.0, sxy / sxx) : 0.0;
    fit.alphaNs = std::max(0.0, meanY - fit.betaNsPerByte * meanX);
    return fit;
}

double MicroBatchTimes::computeNs() const {
    double sum = gatherNs + lossNs;
    for (const LayerTimes& layer : layers) sum += layer.forwardNs + layer.backwardNs;
    return sum;
}

namespace {

/// a + (b - a) x t on every piece; never below zero (an extrapolation of noisy points may dip).
MicroBatchTimes blend(const MicroBatchTimes& a, const MicroBatchTimes& b, double t) {
    auto mix = [t](double x, double y) { return std::max(0.0, x + (y - x) * t); };
    MicroBatchTimes out;
    out.gatherNs = mix(a.gatherNs, b.gatherNs);
    out.lossNs = mix(a.lossNs, b.lossNs);
    out.otherNs = mix(a.otherNs, b.otherNs);
    const std::size_t layers = std::min(a.layers.size(), b.layers.size());
    for (std::size_t i = 0; i < layers; ++i)
        out.layers.push_back({mix(a.layers[i].forwardNs, b.layers[i].forwardNs), mix(a.layers[i].backwardNs, b.layers[i].backwardNs)});
    return out;
}

MicroBatchTimes scaled(const MicroBatchTimes& a, double factor) {
    MicroBatchTimes out = a;
    out.gatherNs *= factor;
    out.lossNs *= factor;
    for (LayerTimes& layer : out.layers) {
        layer.forwardNs *= factor;
        layer.backwardNs *= factor;
    }
    return out;  // the step's bookkeeping does not grow with the rows
}

}  // namespace

MicroBatchTimes interpolateRows(const ModelCalibration& calibration, std::int64_t rows) {
    const auto& points = calibration.byRows;
    if (points.empty()) return {};
    if (const auto exact = points.find(rows); exact != points.end()) return exact->second;
    if (points.size() == 1) return scaled(points.begin()->second, double(rows) / double(points.begin()->first));
    auto upper = points.lower_bound(rows);  // the first size above rows
    if (upper == points.begin()) upper = std::next(upper);
    if (upper == points.end()) upper = std::prev(points.end());
    const auto lower = std::prev(upper);
    const double t = double(rows - lower->first) / double(upper->first - lower->first);
    return blend(lower->second, upper->second, t);
}

std::string reductionKey(CrossDeviceOps algorithm, int replicas, std::int64_t packBytesBucket) {
    return std::string(configName(algorithm)) + "/" + std::to_string(replicas) + "/" + std::to_string(packBytesBucket);
}
std::string mirroredKey(CrossDeviceOps algorithm, int replicas, std::int64_t packs, int threadsPerReplica) {
    return std::string(configName(algorithm)) + "/" + std::to_string(replicas) + "/" + std::to_string(packs) + "x" +
           std::to_string(threadsPerReplica);
}
std::string serverKey(ParameterServerMode mode, int workers) {
    return std::string(mode == ParameterServerMode::Async ? "async" : "sync") + "/" + std::to_string(workers);
}

StepTimePrediction predictOneDevice(const MicroBatchTimes& micro, double optimizerNs, std::int64_t accumulation) {
    StepTimePrediction p;
    p.computeMs = double(accumulation) * micro.computeNs() * 1e-6;
    p.optimizerMs = (optimizerNs + micro.otherNs) * 1e-6;
    p.stepMs = p.computeMs + p.optimizerMs;
    return p;
}

StepTimePrediction predictMirrored(const MirroredCosts& c, int replicas, std::int64_t accumulation, int cores) {
    // Replica threads beyond the cores take turns: each replica's own work stretches by the ratio.
    // The reduction's time is the benchmark's, which ran as many threads on the same cores.
    const double stretch = std::max(1.0, double(replicas) / double(std::max(1, cores)));
    StepTimePrediction p;
    p.computeMs = double(accumulation) * c.micro.computeNs() * stretch * 1e-6;
    p.optimizerMs = (c.optimizerNs * stretch + c.otherNs) * 1e-6;
    if (replicas > 1) {
        // The protocol measured on a minimal model, plus the bandwidth term of the bytes it did not
        // move (the fitted line's latency is in the protocol, measured as the trainer runs it).
        const double extraBytes = std::max(0.0, double(c.packBytes - c.protocolPackBytes));
        p.communicationMs = (c.protocolNs + double(c.packs) * c.reduction.betaNsPerByte * extraBytes) * 1e-6;
    }
    p.stepMs = p.computeMs + p.communicationMs + p.optimizerMs;
    return p;
}

StepTimePrediction predictParameterServer(const ServerCosts& c, ParameterServerMode mode, std::int64_t gradientsToAggregate, int cores) {
    const auto workers = static_cast<int>(std::max<std::size_t>(1, c.speeds.size()));
    const double coreCount = double(std::max(1, cores));
    // A worker's own time for a gradient: read the parameters, compute, push. When more workers
    // compute than there are cores they take turns (processor sharing).
    const double own = c.pullNs + c.gradientNs + c.pushNs;
    const double shared = own * std::max(1.0, double(workers) / coreCount);
    // The hand-offs' extra cost is waking threads on cores that went idle: with more workers than
    // cores a core seldom idles, and the cost shrinks with the share of cores that can.
    const double handOff = c.handOffNs * std::min(1.0, coreCount / double(workers));
    // A straggler at speed s stretches its wall time to 1/s of it (sleeping, which frees its core).
    auto wall = [&](double speed) {
        const double s = std::clamp(speed, 0.1, 1.0);
        return s < 1.0 ? shared / s + c.sleepOvershootNs : shared;
    };
    StepTimePrediction p;
    double stepNs = 0.0;
    if (mode == ParameterServerMode::Async) {
        // Each worker cycles: its gradient, its hand-offs, then its share of the protocol's round
        // trip (the measured protocol-alone update covers one permit per worker in turn). The servers apply
        // one gradient per update; the update rate is the workers' summed rate, unless the cores
        // (every gradient's work plus the update) or the coordinator (protocol plus apply) bind.
        double rate = 0.0;
        for (double speed : c.speeds) rate += 1.0 / (wall(speed) + double(workers) * c.protocolNs + handOff);
        const double byWorkers = rate > 0 ? 1.0 / rate : 0.0;
        const double byCores = (own + c.applyNs) / coreCount;
        const double byServers = c.protocolNs + c.applyNs;
        stepNs = std::max({byWorkers, byCores, byServers});
        p.computeMs = std::min(stepNs, c.gradientNs) * 1e-6;
        p.communicationMs = std::min(stepNs - p.computeMs * 1e6, c.pullNs + c.pushNs) * 1e-6;
    } else {
        // Every worker gets a permit at once; the update waits for the `wanted` first gradients
        // (the slowest of them sets the pace), sums them (a pass per gradient) and applies.
        std::vector<double> walls;
        for (double speed : c.speeds) walls.push_back(wall(speed));
        std::sort(walls.begin(), walls.end());
        const std::int64_t wanted = gradientsToAggregate > 0 ? std::min<std::int64_t>(gradientsToAggregate, workers) : workers;
        const double slowest = walls[static_cast<std::size_t>(wanted - 1)];
        const double aggregate = double(wanted + 1) * c.pushNs;
        stepNs = c.protocolNs + handOff + slowest + aggregate + c.applyNs;
        p.computeMs = c.gradientNs * std::max(1.0, double(workers) / coreCount) * 1e-6;
        p.communicationMs = (c.pullNs + c.pushNs) * std::max(1.0, double(workers) / coreCount) * 1e-6;
    }
    p.stepMs = stepNs * 1e-6;
    p.optimizerMs = std::max(0.0, p.stepMs - p.computeMs - p.communicationMs);
    return p;
}

Result<StepTimePrediction> predictPipeline(const PipelineCosts& c) {
    const int p = c.shape.devices;
    if (c.stages.size() != static_cast<std::size_t>(p) * static_cast<std::size_t>(c.shape.virtualStages) ||
        c.deviceOptimizerNs.size() != static_cast<std::size_t>(p))
        return Error{"the pipeline's stage or device times do not match its shape"};
    auto order = pipelineOrder(c.schedule, c.shape);
    if (!order) return order.error();
    auto timeline = simulatePipeline(*order, c.shape, c.stages);
    if (!timeline) return timeline.error();
    // Each device reduces and updates after its own last pass; the step ends with the last of them.
    double end = 0.0, reduction = 0.0;
    for (int d = 0; d < p; ++d) {
        const auto& passes = timeline->devices[static_cast<std::size_t>(d)];
        const double reduce =
            static_cast<std::size_t>(d) < c.deviceReductionNs.size() ? c.deviceReductionNs[static_cast<std::size_t>(d)] : 0.0;
        reduction = std::max(reduction, reduce);
        end = std::max(end, (passes.empty() ? 0.0 : passes.back().end) + reduce + c.deviceOptimizerNs[static_cast<std::size_t>(d)]);
    }
    StepTimePrediction prediction;
    prediction.computeMs = timeline->makespan * 1e-6;
    prediction.communicationMs = reduction * 1e-6;
    prediction.stepMs = (end + c.otherNs) * 1e-6;
    prediction.optimizerMs = std::max(0.0, prediction.stepMs - prediction.computeMs - prediction.communicationMs);
    return prediction;
}

}  // namespace distlab
