#include "distlab/distribute/pipeline_placement.hpp"

#include <omp.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "distlab/core/rng.hpp"
#include "model/layer_timing.hpp"

namespace distlab {

int PipelinePlacement::stageOf(int device, int chunk) const {
    for (std::size_t s = 0; s < stages.size(); ++s)
        if (stages[s].device == device && stages[s].chunk == chunk) return static_cast<int>(s);
    throw std::out_of_range("PipelinePlacement::stageOf: device " + std::to_string(device) + " has no chunk " + std::to_string(chunk));
}

std::vector<int> PipelinePlacement::layerStages() const {
    std::vector<int> out;
    for (std::size_t s = 0; s < stages.size(); ++s)
        for (std::size_t layer = stages[s].firstLayer; layer < stages[s].endLayer; ++layer) out.push_back(static_cast<int>(s));
    return out;
}

std::vector<int> balanceStages(std::span<const double> layerCosts, int stages) {
    const auto n = static_cast<int>(layerCosts.size());
    if (stages < 1 || stages > n) throw std::invalid_argument("balanceStages: needs 1 to " + std::to_string(n) + " stages");
    std::vector<double> prefix(static_cast<std::size_t>(n) + 1, 0.0);
    for (int i = 0; i < n; ++i)
        prefix[static_cast<std::size_t>(i) + 1] = prefix[static_cast<std::size_t>(i)] + layerCosts[static_cast<std::size_t>(i)];
    auto cost = [&](int begin, int end) { return prefix[static_cast<std::size_t>(end)] - prefix[static_cast<std::size_t>(begin)]; };
    // best[k][i]: the least largest group over the first i layers in k groups; cut[k][i]: where its last group begins.
    const double infinity = std::numeric_limits<double>::infinity();
    std::vector<std::vector<double>> best(static_cast<std::size_t>(stages) + 1,
                                          std::vector<double>(static_cast<std::size_t>(n) + 1, infinity));
    std::vector<std::vector<int>> cut(best.size(), std::vector<int>(static_cast<std::size_t>(n) + 1, 0));
    best[0][0] = 0.0;
    for (int k = 1; k <= stages; ++k)
        for (int i = k; i <= n; ++i)
            for (int j = k - 1; j < i; ++j) {
                const double largest = std::max(best[static_cast<std::size_t>(k) - 1][static_cast<std::size_t>(j)], cost(j, i));
                if (largest < best[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)]) {
                    best[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)] = largest;
                    cut[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)] = j;
                }
            }
    std::vector<int> stageOfLayer(static_cast<std::size_t>(n), 0);
    for (int k = stages, end = n; k >= 1; --k) {
        const int begin = cut[static_cast<std::size_t>(k)][static_cast<std::size_t>(end)];
        for (int layer = begin; layer < end; ++layer) stageOfLayer[static_cast<std::size_t>(layer)] = k - 1;
        end = begin;
    }
    return stageOfLayer;
}

PipelinePlacement placeLayers(const RunConfig& config, std::span<const double> layerCosts) {
    const std::vector<LayerConfig>& layers = config.model.layers;
    PipelinePlacement placement;
    std::vector<int> stageOfLayer, deviceOfStage;
    if (config.strategy.type == StrategyKind::Pipeline) {
        const auto p = static_cast<int>(config.strategy.stages);
        const auto count = static_cast<int>(config.strategy.stages * config.strategy.virtualStages);
        if (layers.front().stage >= 0)
            for (const LayerConfig& layer : layers) stageOfLayer.push_back(static_cast<int>(layer.stage));
        else
            stageOfLayer = balanceStages(layerCosts, count);
        for (int s = 0; s < count; ++s) deviceOfStage.push_back(s % p);
        placement.devices = p;
    } else {
        const std::vector<DeviceName> devices = pipelineDevices(config);
        for (std::size_t i = 0; i < layers.size(); ++i) {
            const DeviceName device = layers[i].device.value_or(DeviceName{});
            const auto lane = static_cast<int>(std::find(devices.begin(), devices.end(), device) - devices.begin());
            if (i == 0 || lane != deviceOfStage.back()) deviceOfStage.push_back(lane);
            stageOfLayer.push_back(static_cast<int>(deviceOfStage.size()) - 1);
        }
        placement.devices = static_cast<int>(devices.size());
    }
    std::vector<int> chunks(static_cast<std::size_t>(placement.devices), 0);
    for (std::size_t s = 0; s < deviceOfStage.size(); ++s) {
        PipelineStage stage;
        stage.firstLayer =
            static_cast<std::size_t>(std::find(stageOfLayer.begin(), stageOfLayer.end(), static_cast<int>(s)) - stageOfLayer.begin());
        stage.endLayer = stage.firstLayer;
        while (stage.endLayer < stageOfLayer.size() && stageOfLayer[stage.endLayer] == static_cast<int>(s)) ++stage.endLayer;
        stage.device = deviceOfStage[s];
        stage.chunk = chunks[static_cast<std::size_t>(stage.device)]++;
        placement.stages.push_back(stage);
    }
    return placement;
}

PipelinePlacement placeLayers(const RunConfig& config, const Model& model) {
    std::vector<double> costs;
    for (const auto& layer : model.layers()) costs.push_back(static_cast<double>(layer->weightCount()));
    return placeLayers(config, costs);
}

std::vector<double> measureLayerCosts(const ModelConfig& config, std::int64_t features, std::int64_t rows, int threads) {
    const int previousThreads = omp_get_max_threads();
    omp_set_num_threads(threads);
    Model model(config, features);
    model.initialize(config.init, 0);
    ModelContext context = model.makeContext();
    Tensor input({rows, features});
    Rng rng(1);
    for (std::int64_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(rng.normal());
    const Tensor& output = model.forward(input, context);
    // Any output gradient times the same: a product's time does not depend on the values.
    Tensor gradOutput({output.rows(), output.cols()});
    std::fill_n(gradOutput.data(), gradOutput.size(), 1.0f / static_cast<float>(rows));
    const auto nothing = [] {};
    std::vector<double> costs = timeLayerForwards(model, input, context, nothing);
    const std::vector<double> backward = timeLayerBackwards(model, input, gradOutput, context, nothing);
    for (std::size_t i = 0; i < costs.size(); ++i) costs[i] += backward[i];
    omp_set_num_threads(previousThreads);
    return costs;
}

Result<std::vector<std::vector<PipelinePass>>> passOrders(const RunConfig& config, const PipelinePlacement& placement) {
    const auto m = static_cast<int>(config.strategy.microBatches);
    if (config.strategy.type == StrategyKind::Pipeline)
        return pipelineOrder(config.strategy.schedule,
                             PipelineShape{static_cast<int>(config.strategy.stages), m, static_cast<int>(config.strategy.virtualStages)});
    std::vector<std::vector<PipelinePass>> orders(static_cast<std::size_t>(placement.devices));
    const auto stages = static_cast<int>(placement.stages.size());
    for (int s = 0; s < stages; ++s)
        for (int i = 0; i < m; ++i) {
            const PipelineStage& stage = placement.stages[static_cast<std::size_t>(s)];
            orders[static_cast<std::size_t>(stage.device)].push_back(PipelinePass{PassKind::Forward, i, stage.chunk});
        }
    for (int s = stages; s-- > 0;)
        for (int i = 0; i < m; ++i) {
            const PipelineStage& stage = placement.stages[static_cast<std::size_t>(s)];
            orders[static_cast<std::size_t>(stage.device)].push_back(PipelinePass{PassKind::Backward, i, stage.chunk});
        }
    return orders;
}

std::optional<double> bubbleTheory(const RunConfig& config, const PipelinePlacement& placement) {
    const auto m = static_cast<int>(config.strategy.microBatches);
    if (config.strategy.type == StrategyKind::Pipeline)
        return theoreticalBubbleFraction(config.strategy.schedule, PipelineShape{static_cast<int>(config.strategy.stages), m,
                                                                                 static_cast<int>(config.strategy.virtualStages)});
    if (placement.stages.size() != static_cast<std::size_t>(placement.devices)) return std::nullopt;
    return theoreticalBubbleFraction(PipelineSchedule::GPipe, PipelineShape{placement.devices, m, 1});
}

std::vector<double> simulatedBubbles(const RunConfig& config, std::span<const PassTimes> stageTimes) {
    if (config.strategy.type != StrategyKind::Pipeline) return {};
    const PipelineShape shape{static_cast<int>(config.strategy.stages), static_cast<int>(config.strategy.microBatches),
                              static_cast<int>(config.strategy.virtualStages)};
    const auto order = pipelineOrder(config.strategy.schedule, shape);
    if (!order) return {};
    const auto timeline = simulatePipeline(*order, shape, stageTimes);
    if (!timeline) return {};
    std::vector<double> lanes;
    for (std::int64_t lane = 0; lane < config.strategy.stages * config.strategy.dataParallel; ++lane)
        lanes.push_back(timeline->bubbleFraction(static_cast<int>(lane % config.strategy.stages)));
    return lanes;
}

}  // namespace distlab
