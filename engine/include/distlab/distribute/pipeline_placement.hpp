#pragma once
// Where a split model's layers run (issue 43): the stages of a pipeline or a model_parallel run,
// each a contiguous run of the model's own layers, and the device each stage is on. A pipeline of
// p devices and v chunks a device has p·v stages, stage s on device s mod p (Megatron's
// interleaving; v = 1: stage d on device d), its layers named by the config ("stage") or balanced
// by their multiply-accumulates or their measured times (strategy.balance). model_parallel's stages are the runs of consecutive layers that
// name one device; a device may hold several (cpu:0, cpu:1, cpu:0).
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "distlab/config/run_config.hpp"
#include "distlab/distribute/pipeline_schedule.hpp"
#include "distlab/model/model.hpp"

namespace distlab {

struct PipelineStage {
    std::size_t firstLayer = 0;  ///< the model's layers [firstLayer, endLayer)
    std::size_t endLayer = 0;
    int device = 0;  ///< the lane: index into pipelineDevices(config)
    int chunk = 0;   ///< which of its device's stages, in model order
};

struct PipelinePlacement {
    std::vector<PipelineStage> stages;
    int devices = 0;
    /// The stage chunk `chunk` of device `device` is.
    int stageOf(int device, int chunk) const;
    /// Each layer's stage.
    std::vector<int> layerStages() const;
};

/// Splits layers of these costs into `stages` contiguous groups, each at least one layer, so that
/// the costliest group costs as little as can be (the stage that sets a pipeline's pace). Ties go
/// to the earliest split. Each layer's stage, in order. Needs stages <= costs.size().
std::vector<int> balanceStages(std::span<const double> layerCosts, int stages);

/// The placement of a validated pipeline or model_parallel config; `layerCosts` are the model's
/// layers' multiply-accumulates a sample (Layer::weightCount), used where the config names no stage.
PipelinePlacement placeLayers(const RunConfig& config, std::span<const double> layerCosts);
/// placeLayers with the costs of `model`'s layers (the trainer's placement, for a built model).
PipelinePlacement placeLayers(const RunConfig& config, const Model& model);

/// Each layer's forward and backward (as a pipeline's stage runs them: the first layer computes no
/// input gradient), timed alone on this machine with `threads` threads at `rows` rows (a
/// micro-batch), in nanoseconds: the costs `"balance": "measured"` balances stages by. Builds a
/// scratch model of `config` for `features` inputs; a few milliseconds a layer.
std::vector<double> measureLayerCosts(const ModelConfig& config, std::int64_t features, std::int64_t rows, int threads);

/// Each device's passes in the order it runs them: pipelineOrder's for a pipeline (its chunk c of
/// device d is stage c·p + d, placeLayers' numbering); for model_parallel, GPipe's over any
/// placement: every forward by stage then micro-batch, then every backward by stage from the last.
/// Both respect every dependency in an order common to all devices, so none can wait for a pass
/// that waits for it.
Result<std::vector<std::vector<PipelinePass>>> passOrders(const RunConfig& config, const PipelinePlacement& placement);

/// The closed form of the run's bubble (theoreticalBubbleFraction) where one applies: a pipeline,
/// or a model_parallel run with one stage a device (GPipe's). Nullopt for a model_parallel run
/// whose device holds several stages.
std::optional<double> bubbleTheory(const RunConfig& config, const PipelinePlacement& placement);

/// Each lane's bubble in the run's schedule placed by simulatePipeline with each stage's pass
/// times (`stageTimes[s]`, e.g. a run's means, BubbleMeter::meanStageTimes): the closed form's
/// schedule without its equal stages and 1:2 passes, so a measured bubble far from it is the
/// passes' spread, not the stages'. Lane c·p + d of a data-parallel copy is device d's. Empty for a
/// model_parallel run, or with fewer stage times than the pipeline's p·v stages.
std::vector<double> simulatedBubbles(const RunConfig& config, std::span<const PassTimes> stageTimes);

}  // namespace distlab
