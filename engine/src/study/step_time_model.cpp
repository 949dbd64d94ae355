// StepTimeModel: finds in its calibration (or measures and adds) what a variant needs, then calls
// the pure formulas. The measurements are step_time_calibration.cpp's, the disk cache
// step_time_cache.cpp's.
#include "distlab/study/step_time_model.hpp"

#include <algorithm>
#include <bit>
#include <thread>

#include "distlab/distribute/parameter_server_trainer.hpp"
#include "distlab/distribute/pipeline_placement.hpp"
#include "distlab/distribute/replica_pool.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/study/step_time_cache.hpp"
#include "study/step_time_calibration.hpp"

namespace distlab {

namespace {

int hardwareThreads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

/// The calibration's micro-batch sizes around `rows`: the powers of two below and above it
/// (`rows` alone when it is one), so variants of other batch sizes reuse the same measurements.
std::vector<std::int64_t> gridAround(std::int64_t rows) {
    const auto below = static_cast<std::int64_t>(std::bit_floor(static_cast<std::uint64_t>(std::max<std::int64_t>(1, rows))));
    if (below == rows) return {rows};
    return {below, below * 2};
}

/// The variant as the one-device run a calibration measures: its model, data and optimizer.
RunConfig oneDeviceOf(const RunConfig& config, std::int64_t rows, int threads) {
    RunConfig one = config;
    one.name = "calibration";
    one.steps = 0;
    one.evalEvery = 0;
    one.threads = threads;
    one.strategy = StrategyConfig{};
    one.data.globalBatchSize = rows;
    return one;
}

}  // namespace

StepTimeModelOptions StepTimeModelOptions::fromEnvironment() {
    StepTimeModelOptions options;
    options.cacheFile = stepTimeCachePath();
    return options;
}

StepTimeModel::StepTimeModel(StepTimeModelOptions options) : m_options(std::move(options)) {
    if (m_options.cores <= 0) m_options.cores = hardwareThreads();
    StepTimeCalibration cached = loadCalibration(m_options.cacheFile, machineKey());
    m_models = std::move(cached.models);
    m_machine = std::move(cached.machine);
}

void StepTimeModel::save() {
    StepTimeCalibration all{m_models, m_machine};
    (void)saveCalibration(m_options.cacheFile, all, machineKey());  // a failed save costs the next run its measurements only
}

Result<ModelCalibration*> StepTimeModel::modelCalibration(const RunConfig& config, std::int64_t rows, int threads, int concurrent) {
    ModelCalibration& calibration = m_models[modelKey(config, threads, concurrent)];
    for (std::int64_t size : gridAround(rows)) {
        if (calibration.byRows.contains(size)) continue;
        // The step's bookkeeping is one copy's: measured on the one-copy calibration, shared.
        double otherNs = -1.0;
        if (concurrent > 1) {
            auto single = modelCalibration(config, size, threads, 1);
            if (!single) return single.error();
            if (const auto found = (*single)->byRows.find(size); found != (*single)->byRows.end()) otherNs = found->second.otherNs;
        }
        auto measured = measureRows(oneDeviceOf(config, size, threads), concurrent, concurrent == 1);
        if (!measured && size != rows) {
            // A grid size beyond the training set: the variant's own size instead.
            measured = measureRows(oneDeviceOf(config, rows, threads), concurrent, concurrent == 1);
            size = rows;
        }
        if (!measured) return measured.error();
        ++m_measurements;
        if (otherNs >= 0) measured->micro.otherNs = otherNs;
        calibration.parameters = measured->parameters;
        calibration.optimizerNs = measured->optimizerNs;
        calibration.byRows[size] = measured->micro;
    }
    return &calibration;
}

AlphaBeta StepTimeModel::reduction(CrossDeviceOps algorithm, int replicas, std::int64_t packBytes) {
    // One line per power-of-two bucket of pack sizes, fitted around it.
    const auto bucket = static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(std::max<std::int64_t>(64, packBytes))));
    const std::string key = reductionKey(algorithm, replicas, bucket);
    if (const auto found = m_machine.reductions.find(key); found != m_machine.reductions.end()) return found->second;
    ++m_measurements;
    return m_machine.reductions[key] = measureReduction(algorithm, replicas, bucket);
}

Result<double> StepTimeModel::mirroredProtocol(CrossDeviceOps algorithm, int replicas, std::int64_t packs, int threadsPerReplica) {
    const std::string key = mirroredKey(algorithm, replicas, packs, threadsPerReplica);
    if (const auto found = m_machine.mirroredProtocolNs.find(key); found != m_machine.mirroredProtocolNs.end()) return found->second;
    auto measured = measureMirroredProtocol(algorithm, replicas, packs, threadsPerReplica);
    if (!measured) return measured.error();
    ++m_measurements;
    return m_machine.mirroredProtocolNs[key] = *measured;
}

AlphaBeta StepTimeModel::transport(std::int64_t bytes) {
    // Copies scale with bytes on any size a model has here: one line, fitted around the first model's size.
    if (!m_machine.transportMeasured) {
        ++m_measurements;
        m_machine.transport = measureTransport(bytes);
        m_machine.transportMeasured = true;
    }
    return m_machine.transport;
}

Result<double> StepTimeModel::serverUpdate(ParameterServerMode mode, int workers) {
    const std::string key = serverKey(mode, workers);
    if (const auto found = m_machine.serverUpdateNs.find(key); found != m_machine.serverUpdateNs.end()) return found->second;
    auto measured = measureServerUpdate(mode, workers);
    if (!measured) return measured.error();
    ++m_measurements;
    return m_machine.serverUpdateNs[key] = *measured;
}

Result<double> StepTimeModel::serverHandOff(const RunConfig& config, std::int64_t rows, const ServerCosts& perWorker) {
    // Kept with the model's one-copy calibration: the one-worker run computes one copy at a time.
    auto calibration = modelCalibration(config, rows, m_options.cores, 1);
    if (!calibration) return calibration.error();
    auto& handOffs = (*calibration)->serverHandOffNs;
    if (const auto found = handOffs.find(rows); found != handOffs.end()) return found->second;
    // The formula's one-worker step, from the one-copy calibration and the minimal model's
    // protocol, against the same run measured: what the formula leaves out is the hand-offs'.
    ServerCosts one = perWorker;
    const MicroBatchTimes micro = interpolateRows(**calibration, rows);
    one.gradientNs = micro.computeNs() + micro.otherNs;
    one.speeds = {1.0};
    one.handOffNs = 0.0;
    auto protocol = serverUpdate(ParameterServerMode::Sync, 1);
    if (!protocol) return protocol.error();
    one.protocolNs = *protocol;
    const double predicted = predictParameterServer(one, ParameterServerMode::Sync, 0, m_options.cores).stepMs * 1e6;
    auto measured = measureOneWorkerServerStep(config);
    if (!measured) return measured.error();
    ++m_measurements;
    return handOffs[rows] = std::max(0.0, *measured - predicted);
}

double StepTimeModel::sleepOvershoot() {
    if (m_machine.sleepOvershootNs < 0) {
        ++m_measurements;
        m_machine.sleepOvershootNs = measureSleepOvershoot();
    }
    return m_machine.sleepOvershootNs;
}

Result<StepTimePrediction> StepTimeModel::predictMirroredConfig(const RunConfig& config) {
    const StrategyConfig& strategy = config.strategy;
    const auto replicas = static_cast<int>(strategy.replicaCount());
    const std::int64_t accumulation = strategy.gradientAccumulationSteps;
    const std::int64_t rows = std::max<std::int64_t>(1, config.data.globalBatchSize / (replicas * accumulation));
    // The trainer's threads per replica: the config's threads (else the hardware's) shared out.
    const int total = config.threads > 0 ? static_cast<int>(config.threads) : hardwareThreads();
    const int threads = std::max(1, total / replicas);
    const int concurrent = std::min(replicas, m_options.cores);
    auto calibration = modelCalibration(config, rows, threads, concurrent);
    if (!calibration) return calibration.error();
    MirroredCosts costs;
    costs.micro = interpolateRows(**calibration, rows);
    costs.optimizerNs = (*calibration)->optimizerNs;
    costs.otherNs = costs.micro.otherNs;
    if (replicas == 1) return predictOneDevice(costs.micro, costs.optimizerNs, accumulation);
    const std::int64_t gradientBytes = (*calibration)->parameters * 4;
    costs.packs = strategy.bytesPerPack > 0 ? std::max<std::int64_t>(1, (gradientBytes + strategy.bytesPerPack - 1) / strategy.bytesPerPack)
                                            : std::max<std::int64_t>(1, strategy.numPacks);
    costs.packBytes = std::max<std::int64_t>(4, gradientBytes / costs.packs);
    costs.reduction = reduction(strategy.crossDeviceOps, replicas, costs.packBytes);
    // The minimal model has few parameters: more packs than that are as many as it can have.
    const std::int64_t protocolPacks = std::min(costs.packs, kMinimalModelParameters);
    auto protocol = mirroredProtocol(strategy.crossDeviceOps, replicas, protocolPacks, threads);
    if (!protocol) return protocol.error();
    costs.protocolNs = *protocol + double(costs.packs - protocolPacks) * costs.reduction.alphaNs;  // packs it could not have
    costs.protocolPackBytes = kMinimalModelParameters * 4 / protocolPacks;
    return predictMirrored(costs, replicas, accumulation, m_options.cores);
}

Result<StepTimePrediction> StepTimeModel::predictServersConfig(const RunConfig& config) {
    const StrategyConfig& strategy = config.strategy;
    if (strategy.replicasPerWorker > 1) return Error{"the step-time model does not cover parameter-server workers of several replicas yet"};
    const auto workers = static_cast<int>(std::max<std::int64_t>(1, strategy.workers));
    const std::int64_t rows = config.data.globalBatchSize;  // each worker's gradient is of a whole global batch
    // A worker's thread is not an OpenMP thread of the session: it computes with OpenMP's default.
    const int threads = m_options.cores;
    const int concurrent = std::min(workers, m_options.cores);
    auto calibration = modelCalibration(config, rows, threads, concurrent);
    if (!calibration) return calibration.error();
    const MicroBatchTimes micro = interpolateRows(**calibration, rows);
    // The update is applied by the coordinator (or the servers, one thread each) on the team the
    // trainer gives it.
    auto single = modelCalibration(config, rows, ParameterServerTrainer::coordinatorThreads(m_options.cores, workers), 1);
    if (!single) return single.error();
    ServerCosts costs;
    costs.gradientNs = micro.computeNs() + micro.otherNs;
    const AlphaBeta copy = transport((*calibration)->parameters * 4);
    costs.pushNs = copy.ns(double((*calibration)->parameters * 4));
    costs.pullNs = 2.0 * costs.pushNs;  // the servers' answer, then the worker's read of it
    costs.applyNs = (*single)->optimizerNs;
    auto protocol = serverUpdate(strategy.mode, workers);
    if (!protocol) return protocol.error();
    costs.protocolNs = *protocol;
    auto handOff = serverHandOff(config, rows, costs);
    if (!handOff) return handOff.error();
    costs.handOffNs = *handOff;
    for (int w = 0; w < workers; ++w)
        costs.speeds.push_back(static_cast<std::size_t>(w) < strategy.workerSpeed.size() ? strategy.workerSpeed[static_cast<std::size_t>(w)]
                                                                                         : 1.0);
    if (std::any_of(costs.speeds.begin(), costs.speeds.end(), [](double s) { return s < 1.0; })) costs.sleepOvershootNs = sleepOvershoot();
    return predictParameterServer(costs, strategy.mode, strategy.gradientsToAggregate, m_options.cores);
}

Result<StepTimePrediction> StepTimeModel::predictPipelineConfig(const RunConfig& config) {
    const StrategyConfig& strategy = config.strategy;
    const auto p = static_cast<int>(strategy.stages);
    const auto dp = static_cast<int>(strategy.dataParallel);
    const int lanes = p * dp;
    const bool virtualClock = config.clock == ClockMode::Virtual;
    if (!virtualClock && lanes > m_options.cores)
        return Error{
            "the step-time model covers a pipeline on the virtual clock, or with no more devices than cores (how devices "
            "beyond the cores take turns on them is not modelled)"};
    const std::int64_t rows = std::max<std::int64_t>(1, config.data.globalBatchSize / (dp * strategy.microBatches));
    const int threads = threadsPerReplica(config.threads, lanes);
    // On the virtual clock the devices compute one at a time; on the wall clock each has a core.
    auto calibration = modelCalibration(config, rows, threads, virtualClock ? 1 : std::min(lanes, m_options.cores));
    if (!calibration) return calibration.error();
    const MicroBatchTimes micro = interpolateRows(**calibration, rows);
    // The trainer's split: the layers' own stages, or balanced as the trainer balances them.
    auto created = Trainer::create(oneDeviceOf(config, rows, threads));
    if (!created) return created.error();
    const Model& model = (*created)->replicaModel(0);
    std::vector<double> layerNs;
    for (const LayerTimes& layer : micro.layers) layerNs.push_back(layer.forwardNs + layer.backwardNs);
    const PipelinePlacement placement =
        strategy.balance == StageBalance::Measured ? placeLayers(config, layerNs) : placeLayers(config, model);
    PipelineCosts costs;
    costs.schedule = strategy.schedule;
    costs.shape = PipelineShape{p, static_cast<int>(strategy.microBatches), static_cast<int>(strategy.virtualStages)};
    costs.deviceOptimizerNs.assign(static_cast<std::size_t>(p), 0.0);
    costs.deviceReductionNs.assign(static_cast<std::size_t>(p), 0.0);
    const auto parameters = static_cast<double>(model.store().totalSize());
    // Each layer's output bytes at the micro-batch's rows: what a stage hands the next forward (its
    // last layer's output) and the one before backward (its input's gradient), a copy each.
    std::vector<double> outputBytes;
    for (const std::int64_t width : model.layerWidths()) outputBytes.push_back(static_cast<double>(rows * width) * sizeof(float));
    const auto handOverNs = [this](double bytes) { return transport(static_cast<std::int64_t>(bytes)).ns(bytes); };
    for (std::size_t s = 0; s < placement.stages.size(); ++s) {
        const PipelineStage& stage = placement.stages[s];
        PassTimes times{0.0, 0.0, 0.0, 0.0};
        for (std::size_t layer = stage.firstLayer; layer < stage.endLayer; ++layer) {
            times.forward += micro.layers[layer].forwardNs;
            times.backward += micro.layers[layer].backwardNs;
        }
        const bool firstStage = s == 0, lastStage = s + 1 == placement.stages.size();
        times.forward += firstStage ? micro.gatherNs : 0.0;                                       // the first stage reads the micro-batch
        times.forward += lastStage ? micro.lossNs : handOverNs(outputBytes[stage.endLayer - 1]);  // the last computes the loss
        const double backwardHandOver = firstStage ? 0.0 : handOverNs(outputBytes[stage.firstLayer - 1]);
        // ZB-H1 splits a backward into B (which hands the gradient over) and W; the calibration
        // times it whole: half each.
        times.backwardInput = times.backward / 2.0 + backwardHandOver;
        times.backwardWeight = times.backward / 2.0;
        times.backward += backwardHandOver;
        costs.stages.push_back(times);
        const std::int64_t first = model.gradientBegin(stage.firstLayer);
        const std::int64_t end = stage.endLayer < model.layers().size() ? model.gradientBegin(stage.endLayer) : model.store().totalSize();
        const auto device = static_cast<std::size_t>(stage.device);
        costs.deviceOptimizerNs[device] += (*calibration)->optimizerNs * static_cast<double>(end - first) / parameters;
        if (dp > 1) {
            const std::int64_t bytes = (end - first) * 4;
            costs.deviceReductionNs[device] += reduction(strategy.crossDeviceOps, dp, bytes).ns(static_cast<double>(bytes));
        }
    }
    costs.otherNs = micro.otherNs;
    return predictPipeline(costs);
}

Result<StepTimePrediction> StepTimeModel::predict(const RunConfig& config) {
    const StrategyConfig& strategy = config.strategy;
    if (strategy.usesGpus()) return Error{"the step-time model does not cover GPU runs yet"};
    const int before = m_measurements;
    Result<StepTimePrediction> prediction = Error{};
    switch (strategy.type) {
        case StrategyKind::OneDevice:
        case StrategyKind::Mirrored:
            prediction = predictMirroredConfig(config);
            break;
        case StrategyKind::ParameterServer:
            prediction = predictServersConfig(config);
            break;
        case StrategyKind::Pipeline:
            prediction = predictPipelineConfig(config);
            break;
        default:
            return Error{std::string("the step-time model does not cover ") + configName(strategy.type) + " yet"};
    }
    if (m_measurements != before) save();
    return prediction;
}

}  // namespace distlab
