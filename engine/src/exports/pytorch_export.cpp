#include "distlab/exports/pytorch_export.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "distlab/data/batch_sampler.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/files/atomic_file.hpp"
#include "distlab/formats/checkpoint.hpp"
#include "distlab/formats/safetensors.hpp"
#include "distlab/config/layer_types.hpp"
#include "distlab/config/tensor_parallel_plan.hpp"
#include "exports/pytorch_script.hpp"

namespace distlab {
namespace {

using Json = nlohmann::ordered_json;

/// The data file holds the whole training set and every update's indices; past this it is refused
/// rather than written (numpy would read it, but nobody means to export 2 GiB of batches).
constexpr std::int64_t kMaxDataBytes = std::int64_t{2} << 30;

// The exporter must know each layer type's math, so unlike the rest of the engine it names the
// types it can write; a new layer type is refused here until the script learns it.
constexpr std::string_view kDense = "dense";
constexpr std::string_view kResidual = "residual";

Status checkLayers(const std::vector<LayerConfig>& layers, const std::string& path) {
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const std::string key = path + "[" + std::to_string(i) + "]";
        const std::string_view type = layerTypeOf(layers[i]).name;
        if (type == kResidual) {
            if (auto inner = checkLayers(layers[i].layers, key + ".layers"); !inner) return inner;
        } else if (type != kDense) {
            return Error{key + ".type: " + std::string(type) + " layers cannot be exported to PyTorch yet"};
        }
    }
    return Ok{};
}

/// Walks the config's layers in the order the model declared their parameters (a dense layer: its
/// kernel then its bias; a residual block: each branch's layers in turn), taking the names from the
/// model itself so the script uses exactly the names DistLab writes.
class LayerSpecWriter {
public:
    explicit LayerSpecWriter(const std::vector<ParameterInfo>& infos) : m_infos(infos) {}

    Json layers(const std::vector<LayerConfig>& configs) {
        Json out = Json::array();
        for (const LayerConfig& layer : configs) {
            if (layerTypeOf(layer).name == kResidual) {
                Json branches = Json::array();
                for (std::int64_t b = 0; b < std::max<std::int64_t>(1, layer.branches); ++b) branches.push_back(layers(layer.layers));
                out.push_back(Json{{"type", std::string(kResidual)}, {"branches", std::move(branches)}});
            } else {
                const std::string kernel = next("/kernel"), bias = next("/bias");
                out.push_back(
                    Json{{"type", std::string(kDense)}, {"kernel", kernel}, {"bias", bias}, {"activation", configName(layer.activation)}});
            }
        }
        return out;
    }

    bool usedEvery() const { return m_next == m_infos.size(); }

private:
    std::string next(std::string_view suffix) {
        if (m_next >= m_infos.size() || !m_infos[m_next].name.ends_with(suffix))
            throw std::logic_error("pytorch export: the model's parameters do not follow its layers");
        return m_infos[m_next++].name;
    }

    const std::vector<ParameterInfo>& m_infos;
    std::size_t m_next = 0;
};

Json optimizerSpec(const OptimizerConfig& optimizer) {
    Json out{{"type", configName(optimizer.type)}, {"learning_rate", optimizer.learningRate}};
    if (optimizer.type == OptimizerKind::Sgd) {
        out["momentum"] = optimizer.momentum;
        out["nesterov"] = optimizer.nesterov;
    } else {
        out["beta1"] = optimizer.beta1;
        out["beta2"] = optimizer.beta2;
        out["epsilon"] = optimizer.epsilon;
    }
    return out;
}

std::string fileName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

/// The training set and the sample indices of each of `updates` global batches, drawn by a copy of
/// the run's own sampler (so the shuffling is DistLab's, per epoch, whatever the script does):
/// `draws` of the sampler's batches per update, one after another (a synchronous parameter-server
/// update takes one per worker, in worker order, as its coordinator grants them).
Result<SafeTensorsFile> dataFile(const Dataset& train, BatchSampler sampler, std::int64_t samplerBatch, std::int64_t draws,
                                 std::int64_t updates) {
    const std::int64_t globalBatch = draws * samplerBatch;
    const std::int64_t targetBytes = train.isClassification() ? train.count * 4 : train.count * train.outputs * 4;
    const std::int64_t setBytes = train.count * train.features * 4 + targetBytes;
    const std::int64_t room = kMaxDataBytes - setBytes;
    if (room < 0 || updates > room / (globalBatch * 4))
        return Error{"steps: exporting " + std::to_string(updates) + " updates of " + std::to_string(globalBatch) +
                     " sample indices with the " + std::to_string(train.count) +
                     " training samples would write more than 2 GiB of data; export fewer steps"};
    if (train.count > std::numeric_limits<std::int32_t>::max())
        return Error{"data: more than 2^31 training samples cannot be exported to PyTorch"};
    SafeTensorsFile file;
    file.metadata["format"] = "distlab-pytorch-data-1";
    file.tensors["x"] = makeF32Tensor({train.count, train.features}, train.x);
    if (train.isClassification())
        file.tensors["labels"] = makeSafeTensor<std::int32_t>({train.count}, train.labels);
    else
        file.tensors["targets"] = makeF32Tensor({train.count, train.outputs}, train.targets);
    std::vector<std::int32_t> batches;
    batches.reserve(static_cast<std::size_t>(updates * globalBatch));
    for (std::int64_t step = 0; step < updates; ++step)
        for (std::int64_t draw = 0; draw < draws; ++draw)
            for (const std::int64_t index : sampler.next()) batches.push_back(static_cast<std::int32_t>(index));
    file.tensors["batches"] = makeSafeTensor<std::int32_t>({updates, globalBatch}, batches);
    return file;
}

}  // namespace

PyTorchExportFiles pyTorchExportFiles(const std::string& scriptPath) {
    std::filesystem::path base(scriptPath);
    if (base.extension() == ".py") base.replace_extension();
    return {scriptPath, base.string() + ".init.safetensors", base.string() + ".data.safetensors"};
}

/// A synchronous parameter-server run whose every update waits for every worker's gradient is DDP
/// with a replica per worker and a global batch of a batch per worker (docs/semantics.md): the
/// exported script reproduces it. Any other parameter-server run applies gradients in an order, or
/// with a staleness, that the workers' timing decides, which no script can replay.
Status checkServersExportable(const StrategyConfig& strategy) {
    if (strategy.mode != ParameterServerMode::Sync)
        return Error{
            "strategy.mode: asynchronous parameter-server runs cannot be exported to PyTorch: which parameters "
            "each gradient was computed on (its staleness) depends on the workers' timing, which no script can "
            "replay; a synchronous run that aggregates every worker's gradient can be (as DDP)"};
    if (strategy.gradientsToAggregate > 0 && strategy.gradientsToAggregate < strategy.workers)
        return Error{
            "strategy.gradients_to_aggregate: a synchronous run that drops the slowest workers' gradients cannot "
            "be exported to PyTorch: which gradients are dropped depends on the workers' timing"};
    if (strategy.replicasPerWorker > 1)
        return Error{
            "strategy.replicas_per_worker: parameter-server workers of several replicas cannot be exported to "
            "PyTorch yet"};
    return Ok{};
}

Status checkPyTorchExportable(const RunConfig& config) {
    const StrategyKind strategy = config.strategy.type;
    if (strategy == StrategyKind::ParameterServer) {
        if (auto servers = checkServersExportable(config.strategy); !servers) return servers;
    } else if (strategy != StrategyKind::OneDevice && strategy != StrategyKind::Mirrored && strategy != StrategyKind::CentralStorage &&
               strategy != StrategyKind::TensorParallel) {
        return Error{std::string("strategy.type: ") + configName(strategy) + " runs cannot be exported to PyTorch yet"};
    }
    if (config.precision != Precision::Float32)
        return Error{std::string("precision: ") + configName(config.precision) + " runs cannot be exported to PyTorch yet (only float32)"};
    return checkLayers(config.model.layers, "model.layers");
}

PyTorchExport::PyTorchExport() = default;
PyTorchExport::PyTorchExport(PyTorchExport&&) noexcept = default;
PyTorchExport& PyTorchExport::operator=(PyTorchExport&&) noexcept = default;
PyTorchExport::~PyTorchExport() = default;

Result<PyTorchExport> PyTorchExport::prepare(const RunConfig& config, std::int64_t steps) {
    if (auto exportable = checkPyTorchExportable(config); !exportable) return exportable.error();
    PyTorchExport out;
    out.m_steps = steps < 0 ? config.steps : steps;
    out.m_runName = config.name;

    // The initial weights, the data and the batch order come from a one-device copy of the run on
    // cpu:0: every replica starts from replica 0's values (docs/semantics.md §7) and the data and
    // its order depend only on the data keys and the seed (docs/semantics.md §9), so one copy gives
    // exactly what the run starts from, without N model copies or a GPU.
    RunConfig single = config;
    single.strategy = StrategyConfig{};
    auto created = Trainer::create(single);
    if (!created) return created.error();
    out.m_trainer = std::move(*created);

    // A synchronous parameter-server update is DDP over its workers, each a whole sampler batch.
    const bool servers = config.strategy.type == StrategyKind::ParameterServer;
    const std::int64_t draws = servers ? config.strategy.workers : 1;
    const std::int64_t globalBatch = draws * config.data.globalBatchSize;
    auto data = dataFile(out.m_trainer->data().train, out.m_trainer->sampler(), config.data.globalBatchSize, draws, out.m_steps);
    if (!data) return data.error();
    out.m_data = std::move(*data);

    LayerSpecWriter layers(out.m_trainer->replicaModel(0).store().infos());
    Json run{{"name", config.name},
             {"seed", config.seed},
             {"strategy", configName(config.strategy.type)},
             {"replicas", config.strategy.replicaCount()},
             {"gradient_accumulation_steps", config.strategy.gradientAccumulationSteps},
             {"global_batch_size", globalBatch},
             {"steps", out.m_steps},
             {"loss", configName(config.model.loss)},
             {"layers", layers.layers(config.model.layers)},
             {"optimizer", optimizerSpec(config.optimizer)}};
    if (!layers.usedEvery()) throw std::logic_error("pytorch export: parameters left over after the last layer");
    if (config.strategy.type == StrategyKind::TensorParallel) {
        // Megatron's split as DistLab plans it (docs/semantics.md §12.5): each layer's role, and
        // dp copies of tp processes (rank c·tp + d is copy c's tensor-parallel rank d).
        const auto plan = planTensorParallel(config.model, out.m_trainer->data().train.features, config.strategy.tensorParallel);
        if (!plan) return plan.error();
        for (const TensorParallelLayer& layer : *plan) run["layers"][layer.layer]["split"] = roleName(layer.role);
        run["tensor_parallel"] = config.strategy.tensorParallel;
        run["data_parallel"] = config.strategy.dataParallel;
    }
    out.m_runLiteral = pythonLiteral(run);
    return out;
}

Status PyTorchExport::write(const std::string& scriptPath) const {
    const PyTorchExportFiles files = pyTorchExportFiles(scriptPath);
    if (auto written = writeSafeTensors(files.data, m_data); !written) return written;
    if (auto written = saveWeights(m_trainer->replicaModel(0), files.weights); !written) return written;
    // The script names its files relative to its own folder, where they are written.
    const PyTorchExportFiles names{fileName(files.script), fileName(files.weights), fileName(files.data)};
    return writeFileAtomically(files.script, pyTorchScript(m_runName, m_runLiteral, names));
}

Status exportPyTorch(const RunConfig& config, const std::string& scriptPath, std::int64_t steps) {
    auto prepared = PyTorchExport::prepare(config, steps);
    if (!prepared) return prepared.error();
    return prepared->write(scriptPath);
}

}  // namespace distlab
