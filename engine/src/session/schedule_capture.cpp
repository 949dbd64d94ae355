#include "session/schedule_capture.hpp"

#include <algorithm>
#include <limits>

#include "distlab/distribute/pipeline_placement.hpp"

namespace distlab {

std::unique_ptr<ScheduleCapture> ScheduleCapture::forTrainer(const Trainer& trainer) {
    const RunConfig& config = trainer.config();
    if (config.strategy.type != StrategyKind::Pipeline && config.strategy.type != StrategyKind::ModelParallel) return nullptr;
    const PipelinePlacement placement = placeLayers(config, trainer.replicaModel(0));
    auto capture = std::unique_ptr<ScheduleCapture>(new ScheduleCapture(trainer, bubbleTheory(config, placement)));
    capture->m_shape.stages = static_cast<int>(placement.stages.size());
    // What a micro-batch's forward through each stage leaves for its backward: its layers' outputs,
    // float32, at the micro-batch's rows (as the trainer counts them).
    const Model& model = trainer.replicaModel(0);
    const std::int64_t rows = config.data.globalBatchSize / (config.strategy.dataParallel * config.strategy.microBatches);
    std::vector<std::int64_t> layerBytes;
    for (const std::int64_t width : model.layerWidths()) layerBytes.push_back(rows * width * static_cast<std::int64_t>(sizeof(float)));
    // The trainer's own split (a measured balance may differ from the count's).
    const std::vector<int> stageOfLayer = trainer.layerStages();
    capture->m_shape.stageActivationBytes.assign(placement.stages.size(), 0);
    for (std::size_t layer = 0; layer < stageOfLayer.size() && layer < layerBytes.size(); ++layer)
        capture->m_shape.stageActivationBytes[static_cast<std::size_t>(stageOfLayer[layer])] += layerBytes[layer];
    return capture;
}

ScheduleCapture::ScheduleCapture(const Trainer& trainer, std::optional<double> theory) : m_config(trainer.config()) {
    const RunConfig& config = m_config;
    m_shape.virtualClock = config.clock == ClockMode::Virtual;
    m_shape.schedule = configName(config.strategy.type == StrategyKind::Pipeline ? config.strategy.schedule : PipelineSchedule::GPipe);
    m_shape.microBatches = static_cast<int>(config.strategy.microBatches);
    if (config.strategy.type == StrategyKind::Pipeline) m_shape.copies = static_cast<int>(config.strategy.dataParallel);
    for (const DeviceName& device : config.strategy.devices) m_shape.devices.push_back(device.toString());
    m_shape.theory = theory;
    const StrategyConfig& strategy = config.strategy;
    for (int lane = 0; lane < static_cast<int>(m_shape.devices.size()); ++lane) {
        std::optional<int> rule;
        if (strategy.type == StrategyKind::Pipeline)  // each data-parallel copy's device d is lane c·p + d
            rule = theoreticalPeakMicroBatches(
                strategy.schedule,
                PipelineShape{static_cast<int>(strategy.stages), m_shape.microBatches, static_cast<int>(strategy.virtualStages)},
                lane % static_cast<int>(strategy.stages));
        m_shape.activationTheory.push_back(rule.value_or(-1));
    }
}

std::shared_ptr<const ScheduleSnapshot> ScheduleCapture::take(const StepReport& report) const {
    auto snapshot = std::make_shared<ScheduleSnapshot>(m_shape);
    snapshot->step = report.step;
    snapshot->beginNs = std::numeric_limits<std::int64_t>::max();
    snapshot->endNs = std::numeric_limits<std::int64_t>::min();
    BubbleMeter step;
    step.add(report);
    snapshot->stepBubble = step.fractions();
    snapshot->runBubble = m_meter.fractions();
    snapshot->runSteps = m_meter.steps();
    snapshot->simulatedBubble = simulatedBubbles(m_config, m_meter.meanStageTimes());
    for (const ReplicaStepStats& lane : report.replicas) {
        snapshot->activationPeakBytes.push_back(lane.activationPeakBytes);
        snapshot->activationPeakMicroBatches.push_back(lane.activationPeakMicroBatches);
        std::vector<ScheduleCell>& cells = snapshot->lanes.emplace_back();
        for (const Span& span : lane.spans) {
            if (!isPipelinePass(span.kind)) continue;
            cells.push_back(ScheduleCell{span.beginNs, span.endNs, span.microBatch, span.stage, span.kind});
            snapshot->beginNs = std::min(snapshot->beginNs, span.beginNs);
            snapshot->endNs = std::max(snapshot->endNs, span.endNs);
        }
        std::sort(cells.begin(), cells.end(), [](const ScheduleCell& a, const ScheduleCell& b) { return a.beginNs < b.beginNs; });
    }
    if (snapshot->endNs < snapshot->beginNs) snapshot->beginNs = snapshot->endNs = 0;
    return snapshot;
}

}  // namespace distlab
