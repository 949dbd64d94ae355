// The step-time calibration on disk (step_time_cache.hpp; format in docs/interfaces.md §13.5).
#include "distlab/study/step_time_cache.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "distlab/device/device_info.hpp"
#include "distlab/files/atomic_file.hpp"
#include "distlab/config/run_config_json.hpp"

#ifndef DISTLAB_VERSION
#define DISTLAB_VERSION "unknown"
#endif

namespace distlab {

namespace {

using Json = nlohmann::ordered_json;
constexpr int kFormat = 1;

std::string readFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) return {};
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

Json toJson(const AlphaBeta& line) { return Json{{"alpha_ns", line.alphaNs}, {"beta_ns_per_byte", line.betaNsPerByte}}; }
AlphaBeta alphaBetaOf(const Json& json) { return {json.at("alpha_ns").get<double>(), json.at("beta_ns_per_byte").get<double>()}; }

Json toJson(const MicroBatchTimes& micro) {
    Json forward = Json::array(), backward = Json::array();
    for (const LayerTimes& layer : micro.layers) {
        forward.push_back(layer.forwardNs);
        backward.push_back(layer.backwardNs);
    }
    return Json{{"gather_ns", micro.gatherNs},
                {"forward_ns", forward},
                {"loss_ns", micro.lossNs},
                {"backward_ns", backward},
                {"other_ns", micro.otherNs}};
}

MicroBatchTimes microOf(const Json& json) {
    MicroBatchTimes micro;
    micro.gatherNs = json.at("gather_ns").get<double>();
    micro.lossNs = json.at("loss_ns").get<double>();
    micro.otherNs = json.at("other_ns").get<double>();
    const Json& forward = json.at("forward_ns");
    const Json& backward = json.at("backward_ns");
    if (!forward.is_array() || forward.size() != backward.size()) throw std::runtime_error("forward_ns and backward_ns differ in length");
    for (std::size_t i = 0; i < forward.size(); ++i) micro.layers.push_back({forward[i].get<double>(), backward[i].get<double>()});
    return micro;
}

/// Every number must be finite and not negative: a hand-edited or damaged file is refused whole.
void checkNumbers(const Json& json) {
    if (json.is_number() && !(json.get<double>() >= 0.0 && json.get<double>() < 1e18)) throw std::runtime_error("a time out of range");
    if (json.is_structured())
        for (const Json& child : json) checkNumbers(child);
}

}  // namespace

std::string machineKey() {
    const std::vector<CpuInfo> cpus = parseCpuInfo(readFile("/proc/cpuinfo"));
    const std::string cpu = cpus.empty() ? "unknown" : cpus.front().modelName;
    return cpu + "; " + std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " hardware threads; DistLab " + DISTLAB_VERSION;
}

std::string modelKey(const RunConfig& config, int threads, int concurrent) {
    RunConfig shape;  // defaults everywhere but what changes a step's pieces
    shape.name = "";
    shape.model = config.model;
    shape.data = config.data;
    shape.data.globalBatchSize = 1;  // shuffle stays: an unshuffled batch is read in place, a shuffled one copied
    shape.optimizer.type = config.optimizer.type;
    shape.optimizer.momentum = config.optimizer.momentum > 0 ? 1.0 : 0.0;  // a momentum slot or none
    shape.optimizer.nesterov = config.optimizer.nesterov;
    shape.precision = config.precision;
    shape.steps = 0;
    shape.threads = threads;
    shape.baseDirectory = config.baseDirectory;
    return runConfigToJson(shape) + " " + config.baseDirectory + " x" + std::to_string(concurrent);
}

std::string stepTimeCachePath() {
    auto env = [](const char* name) -> std::string {
        const char* value = std::getenv(name);
        return value != nullptr ? value : "";
    };
    if (const char* own = std::getenv("DISTLAB_STEP_TIME_CACHE"); own != nullptr)
        return std::string(own) == "off" ? std::string() : std::string(own);
    std::string folder = env("XDG_CACHE_HOME");
    if (folder.empty() && !env("HOME").empty()) folder = env("HOME") + "/.cache";
    return folder.empty() ? std::string() : folder + "/distlab/step_times.json";
}

std::string calibrationToJson(const StepTimeCalibration& calibration, const std::string& machine) {
    Json models = Json::object();
    for (const auto& [key, model] : calibration.models) {
        Json rows = Json::object();
        for (const auto& [count, micro] : model.byRows) rows[std::to_string(count)] = toJson(micro);
        models[key] = Json{{"parameters", model.parameters}, {"optimizer_ns", model.optimizerNs}, {"rows", rows}};
        if (!model.serverHandOffNs.empty()) {
            Json handOffs = Json::object();
            for (const auto& [count, ns] : model.serverHandOffNs) handOffs[std::to_string(count)] = ns;
            models[key]["server_handoff_ns"] = handOffs;
        }
    }
    const MachineCalibration& m = calibration.machine;
    Json reductions = Json::object(), servers = Json::object();
    for (const auto& [key, line] : m.reductions) reductions[key] = toJson(line);
    for (const auto& [key, ns] : m.serverUpdateNs) servers[key] = ns;
    Json out{{"format", kFormat},
             {"machine", machine},
             {"models", models},
             {"reductions", reductions},
             {"mirrored_protocol_ns", Json(m.mirroredProtocolNs)},
             {"server_update_ns", servers}};
    if (m.transportMeasured) out["transport"] = toJson(m.transport);
    if (m.sleepOvershootNs >= 0) out["sleep_overshoot_ns"] = m.sleepOvershootNs;
    return out.dump(1) + "\n";
}

Result<StepTimeCalibration> calibrationFromJson(std::string_view text, const std::string& machine) {
    try {
        const Json json = Json::parse(text);
        if (!json.is_object() || json.value("format", 0) != kFormat) return Error{"not a step-time calibration of format 1"};
        if (json.at("machine").get<std::string>() != machine) return Error{"the calibration of another machine"};
        StepTimeCalibration calibration;
        for (const auto& [key, model] : json.at("models").items()) {
            checkNumbers(model);
            ModelCalibration& out = calibration.models[key];
            out.parameters = model.at("parameters").get<std::int64_t>();
            out.optimizerNs = model.at("optimizer_ns").get<double>();
            for (const auto& [rows, micro] : model.at("rows").items()) {
                const std::int64_t count = std::stoll(rows);
                if (count <= 0) return Error{"a micro-batch of no rows"};
                out.byRows[count] = microOf(micro);
            }
            if (model.contains("server_handoff_ns"))  // measured only where a parameter-server variant was predicted
                for (const auto& [rows, ns] : model.at("server_handoff_ns").items()) {
                    const std::int64_t count = std::stoll(rows);
                    if (count <= 0) return Error{"a hand-off of a batch of no rows"};
                    out.serverHandOffNs[count] = ns.get<double>();
                }
        }
        MachineCalibration& m = calibration.machine;
        for (const char* section : {"reductions", "mirrored_protocol_ns", "server_update_ns"}) checkNumbers(json.at(section));
        for (const auto& [key, line] : json.at("reductions").items()) m.reductions[key] = alphaBetaOf(line);
        for (const auto& [key, ns] : json.at("mirrored_protocol_ns").items()) m.mirroredProtocolNs[key] = ns.get<double>();
        for (const auto& [key, ns] : json.at("server_update_ns").items()) m.serverUpdateNs[key] = ns.get<double>();
        if (json.contains("transport")) {
            checkNumbers(json.at("transport"));
            m.transport = alphaBetaOf(json.at("transport"));
            m.transportMeasured = true;
        }
        if (json.contains("sleep_overshoot_ns")) {
            checkNumbers(json.at("sleep_overshoot_ns"));
            m.sleepOvershootNs = json.at("sleep_overshoot_ns").get<double>();
        }
        return calibration;
    } catch (const std::exception& error) {  // a parse error, a missing key, a value of the wrong type
        return Error{std::string("a corrupt step-time calibration: ") + error.what()};
    }
}

StepTimeCalibration loadCalibration(const std::string& path, const std::string& machine) {
    if (path.empty()) return {};
    try {
        std::error_code ignored;
        if (!std::filesystem::is_regular_file(path, ignored)) return {};  // never block on a FIFO or a device
        auto parsed = calibrationFromJson(readFile(path), machine);
        return parsed ? *parsed : StepTimeCalibration{};
    } catch (const std::exception&) {
        return {};
    }
}

Status saveCalibration(const std::string& path, const StepTimeCalibration& calibration, const std::string& machine) {
    if (path.empty()) return Ok{};
    try {
        std::error_code ignored;
        const std::filesystem::path folder = std::filesystem::path(path).parent_path();
        if (!folder.empty()) std::filesystem::create_directories(folder, ignored);
        return writeFileAtomically(path, calibrationToJson(calibration, machine));
    } catch (const std::exception& error) {
        return Error{error.what()};
    }
}

}  // namespace distlab
