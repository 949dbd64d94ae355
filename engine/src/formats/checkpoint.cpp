#include "distlab/formats/checkpoint.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "distlab/distribute/parameter_server_controls.hpp"
#include "distlab/config/run_config_json.hpp"
#include "distlab/formats/safetensors.hpp"

namespace distlab {
namespace {

constexpr const char* kFormatKey = "format";
constexpr const char* kCheckpointFormat = "distlab-checkpoint-1";

void addParameters(SafeTensorsFile& file, const ParameterStore& store) {
    for (const ParameterInfo& info : store.infos())
        file.tensors[info.name] =
            makeF32Tensor(info.shape, store.values().subspan(static_cast<std::size_t>(info.offset), static_cast<std::size_t>(info.size)));
}

std::vector<ExpectedTensor> expectedParameters(const ParameterStore& store) {
    std::vector<ExpectedTensor> expected;
    for (const ParameterInfo& info : store.infos()) expected.push_back({info.name, info.shape});
    return expected;
}

Status copyParameters(const SafeTensorsFile& file, ParameterStore& store, const std::string& path) {
    // Everything is read and checked before the store changes: a bad tensor leaves the weights as they were.
    std::vector<float> loaded(static_cast<std::size_t>(store.totalSize()));
    for (const ParameterInfo& info : store.infos()) {
        const auto values = std::span<float>(loaded).subspan(static_cast<std::size_t>(info.offset), static_cast<std::size_t>(info.size));
        auto status = copySafeTensor(file, info.name, info.shape, values, path);
        if (!status) return status;
        // A NaN or infinite weight makes the first loss non-finite, which would read as divergence
        // (advice: lower the learning rate) instead of naming the file that holds it.
        const auto bad = std::find_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); });
        if (bad != values.end())
            return Error{path + ": " + info.name + ": element " + std::to_string(bad - values.begin()) + " is " +
                         (std::isnan(*bad) ? "NaN" : "infinite") + "; weights must be finite numbers"};
    }
    std::copy(loaded.begin(), loaded.end(), store.values().begin());
    return Ok{};
}

// A saved run is a checkpoint with its curves beside the weights: they are not the model's.
void dropSavedRunCurves(SafeTensorsFile& file) {
    std::erase_if(file.tensors, [](const auto& entry) { return entry.first.starts_with(kSavedRunTensorPrefix); });
}

Result<std::int64_t> metadataInteger(const SafeTensorsFile& file, const std::string& key, const std::string& path) {
    const auto found = file.metadata.find(key);
    if (found == file.metadata.end()) return Error{path + ": __metadata__." + key + ": missing (is this a DistLab checkpoint?)"};
    std::int64_t value = 0;
    const auto* end = found->second.data() + found->second.size();
    const auto [ptr, ec] = std::from_chars(found->second.data(), end, value);
    if (ec != std::errc{} || ptr != end || value < 0)
        return Error{path + ": __metadata__." + key + ": \"" + found->second + "\" is not a non-negative integer"};
    return value;
}

// A parameter-server checkpoint's per-worker counts, comma-separated in worker order.
constexpr const char* kWorkerGradientsKey = "worker_gradients";
constexpr const char* kWorkerUpdatesKey = "worker_updates";

std::string joinCounts(const ParameterServerControls& controls, bool updates) {
    std::string text;
    for (int w = 0; w < controls.workerCount(); ++w) {
        const WorkerStatus status = controls.workerStatus(w);
        if (w > 0) text += ',';
        text += std::to_string(updates ? status.updates : status.gradients);
    }
    return text;
}

/// The per-worker counts under `key`; empty when the key is absent (a checkpoint of another
/// strategy, or one written before the counts were kept: they then start from 0).
Result<std::vector<std::int64_t>> workerCounts(const SafeTensorsFile& file, const std::string& key, const std::string& path) {
    const auto found = file.metadata.find(key);
    if (found == file.metadata.end()) return std::vector<std::int64_t>{};
    std::vector<std::int64_t> counts;
    const std::string& text = found->second;
    const char* at = text.data();
    const char* end = text.data() + text.size();
    while (at < end) {
        std::int64_t value = 0;
        const auto [ptr, ec] = std::from_chars(at, end, value);
        if (ec != std::errc{} || value < 0 || (ptr != end && *ptr != ',')) {
            at = nullptr;
            break;
        }
        counts.push_back(value);
        at = ptr == end ? end : ptr + 1;
    }
    if (at == nullptr || (!text.empty() && text.back() == ','))
        return Error{path + ": __metadata__." + key + ": \"" + text + "\" is not comma-separated non-negative integers"};
    return counts;
}

}  // namespace

Status saveWeights(const Model& model, const std::string& path) {
    SafeTensorsFile file;
    addParameters(file, model.store());
    return writeSafeTensors(path, file);
}

Status loadWeights(Trainer& trainer, const std::string& path, const std::string& field) {
    auto file = readSafeTensors(path, field);
    if (!file) return file.error();
    dropSavedRunCurves(*file);
    ParameterStore& store = trainer.primaryModel().store();
    const auto expected = expectedParameters(store);
    if (auto status = checkTensorsMatch(*file, expected, path); !status) return status;
    if (auto status = copyParameters(*file, store, path); !status) return status;
    trainer.broadcastParameters();
    return Ok{};
}

SafeTensorsFile checkpointContents(Trainer& trainer) {
    SafeTensorsFile file;
    const ParameterStore& store = trainer.primaryModel().store();
    addParameters(file, store);
    Optimizer& optimizer = trainer.replicaOptimizer(0);
    const auto slotNames = optimizer.slotNames();
    for (std::size_t s = 0; s < slotNames.size(); ++s) {
        const auto slot = optimizer.slot(s);
        for (const ParameterInfo& info : store.infos())
            file.tensors["optimizer/" + info.name + "/" + slotNames[s]] = makeF32Tensor(
                info.shape,
                std::span<const float>(slot.subspan(static_cast<std::size_t>(info.offset), static_cast<std::size_t>(info.size))));
    }
    file.metadata[kFormatKey] = kCheckpointFormat;
    file.metadata["step"] = std::to_string(trainer.stepsDone());
    file.metadata["epoch"] = std::to_string(trainer.sampler().epoch());
    file.metadata["cursor"] = std::to_string(trainer.sampler().cursor());
    file.metadata["optimizer_iterations"] = std::to_string(optimizer.iterations());
    file.metadata["learning_rate"] = std::to_string(trainer.learningRate());
    file.metadata["config"] = runConfigToJson(trainer.config());
    if (const ParameterServerControls* controls = trainer.parameterServerControls()) {
        file.metadata[kWorkerGradientsKey] = joinCounts(*controls, /*updates=*/false);
        file.metadata[kWorkerUpdatesKey] = joinCounts(*controls, /*updates=*/true);
    }
    return file;
}

Status saveCheckpoint(Trainer& trainer, const std::string& path) { return writeSafeTensors(path, checkpointContents(trainer)); }

Status resumeCheckpoint(Trainer& trainer, const std::string& path, const std::string& field) {
    auto file = readSafeTensors(path, field);
    if (!file) return file.error();
    dropSavedRunCurves(*file);
    if (file->metadata[kFormatKey] != kCheckpointFormat)
        return Error{path + ": __metadata__.format: not a DistLab checkpoint (a weights file? use --init-weights)"};
    auto step = metadataInteger(*file, "step", path);
    auto epoch = metadataInteger(*file, "epoch", path);
    auto cursor = metadataInteger(*file, "cursor", path);
    auto iterations = metadataInteger(*file, "optimizer_iterations", path);
    for (const auto* value : {&step, &epoch, &cursor, &iterations})
        if (!*value) return value->error();
    if (*cursor > trainer.data().train.count)
        return Error{path + ": __metadata__.cursor: " + std::to_string(*cursor) + " is past the " +
                     std::to_string(trainer.data().train.count) + " training samples of this run's data"};

    // Validate everything before touching the trainer, so a bad file changes nothing.
    ParameterServerControls* controls = trainer.parameterServerControls();
    auto gradients = workerCounts(*file, kWorkerGradientsKey, path);
    auto updates = workerCounts(*file, kWorkerUpdatesKey, path);
    for (const auto* counts : {&gradients, &updates})
        if (controls != nullptr && !*counts) return counts->error();
    ParameterStore& store = trainer.primaryModel().store();
    Optimizer& optimizer = trainer.replicaOptimizer(0);
    std::vector<ExpectedTensor> expected = expectedParameters(store);
    const auto slotNames = optimizer.slotNames();
    for (const auto& slotName : slotNames)
        for (const ParameterInfo& info : store.infos()) expected.push_back({"optimizer/" + info.name + "/" + slotName, info.shape});
    if (auto status = checkTensorsMatch(*file, expected, path, /*ignorePrefix=*/""); !status) return status;

    if (auto status = copyParameters(*file, store, path); !status) return status;
    for (int r = 0; r < trainer.optimizerCount(); ++r) {
        Optimizer& replicaOptimizer = trainer.replicaOptimizer(r);
        for (std::size_t s = 0; s < slotNames.size(); ++s) {
            const auto slot = replicaOptimizer.slot(s);
            for (const ParameterInfo& info : store.infos()) {
                auto status =
                    copySafeTensor(*file, "optimizer/" + info.name + "/" + slotNames[s], info.shape,
                                   slot.subspan(static_cast<std::size_t>(info.offset), static_cast<std::size_t>(info.size)), path);
                if (!status) return status;
            }
        }
        replicaOptimizer.setIterations(*iterations);
    }
    trainer.broadcastParameters();
    trainer.restoreProgress(*step, *epoch, *cursor);
    // Counts of another number of workers (a config edited before resuming) are not these workers'.
    const auto workers = controls != nullptr ? static_cast<std::size_t>(controls->workerCount()) : 0;
    if (controls != nullptr && gradients->size() == workers && updates->size() == workers)
        for (int w = 0; w < static_cast<int>(workers); ++w)
            controls->restoreWorkerCounts(w, (*gradients)[static_cast<std::size_t>(w)], (*updates)[static_cast<std::size_t>(w)]);
    return Ok{};
}

Result<std::string> checkpointConfigJson(const std::string& path, const std::string& field) {
    auto file = readSafeTensors(path, field);
    if (!file) return file.error();
    const auto found = file->metadata.find("config");
    if (found == file->metadata.end()) return Error{path + ": __metadata__.config: missing (is this a DistLab checkpoint?)"};
    return found->second;
}

}  // namespace distlab
