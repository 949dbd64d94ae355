// toString / fromString for the enums of run_config.hpp, and the device-name syntax.
#include <distlab/config/run_config_json.hpp>

#include "config/run_config_enum_names.hpp"

#include <charconv>

namespace distlab {

using namespace run_config_detail;

const char* configName(Activation value) { return nameOf(kActivationNames, value); }
const char* configName(LossKind value) { return nameOf(kLossNames, value); }
const char* configName(InitKind value) { return nameOf(kInitNames, value); }
const char* configName(DataSource value) { return nameOf(kDataSourceNames, value); }
const char* configName(SyntheticKind value) { return nameOf(kSyntheticKindNames, value); }
const char* configName(OptimizerKind value) { return nameOf(kOptimizerNames, value); }
const char* configName(StrategyKind value) { return nameOf(kStrategyNames, value); }
const char* configName(CrossDeviceOps value) { return nameOf(kCrossDeviceOpsNames, value); }
const char* configName(Precision value) { return nameOf(kPrecisionNames, value); }
const char* configName(PipelineSchedule value) { return nameOf(kPipelineScheduleNames, value); }
const char* configName(ClockMode value) { return nameOf(kClockNames, value); }
const char* configName(StageBalance value) { return nameOf(kStageBalanceNames, value); }

bool fromString(std::string_view text, Activation& value) { return valueOf(kActivationNames, text, value); }
bool fromString(std::string_view text, LossKind& value) { return valueOf(kLossNames, text, value); }
bool fromString(std::string_view text, InitKind& value) { return valueOf(kInitNames, text, value); }
bool fromString(std::string_view text, DataSource& value) { return valueOf(kDataSourceNames, text, value); }
bool fromString(std::string_view text, SyntheticKind& value) { return valueOf(kSyntheticKindNames, text, value); }
bool fromString(std::string_view text, OptimizerKind& value) { return valueOf(kOptimizerNames, text, value); }
bool fromString(std::string_view text, StrategyKind& value) { return valueOf(kStrategyNames, text, value); }
bool fromString(std::string_view text, CrossDeviceOps& value) { return valueOf(kCrossDeviceOpsNames, text, value); }
bool fromString(std::string_view text, Precision& value) { return valueOf(kPrecisionNames, text, value); }

bool parseDeviceName(std::string_view text, DeviceName& device) {
    DeviceName::Kind kind;
    if (text.starts_with("cpu:")) {
        kind = DeviceName::Kind::Cpu;
    } else if (text.starts_with("gpu:")) {
        kind = DeviceName::Kind::Gpu;
    } else {
        return false;
    }
    const std::string_view digits = text.substr(4);
    // from_chars alone would accept "-1" and stop early on "1x"; demand plain digits only.
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) return false;
    int index = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (error != std::errc{} || end != digits.data() + digits.size()) return false;
    device.kind = kind;
    device.index = index;
    return true;
}

std::vector<DeviceName> pipelineDevices(const RunConfig& config) {
    std::vector<DeviceName> devices;
    if (config.strategy.type == StrategyKind::Pipeline) {
        // Data-parallel copy c's pipeline device d is cpu:c·p+d.
        for (std::int64_t d = 0; d < config.strategy.stages * config.strategy.dataParallel; ++d)
            devices.push_back(DeviceName{DeviceName::Kind::Cpu, static_cast<int>(d)});
    } else if (config.strategy.type == StrategyKind::ModelParallel) {
        for (const LayerConfig& layer : config.model.layers) {
            const DeviceName device = layer.device.value_or(DeviceName{});
            if (std::find(devices.begin(), devices.end(), device) == devices.end()) devices.push_back(device);
        }
        std::sort(devices.begin(), devices.end(),
                  [](const DeviceName& a, const DeviceName& b) { return a.kind != b.kind ? a.kind < b.kind : a.index < b.index; });
    }
    return devices;
}

}  // namespace distlab
