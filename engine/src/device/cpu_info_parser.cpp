// Parsers for the text of /proc/cpuinfo and /proc/meminfo. Pure functions, so tests can feed them
// fixed text; queryDevices reads the files.
#include "distlab/device/device_info.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

namespace distlab {
namespace {

std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t\r");
    return text.substr(first, last - first + 1);
}

/// One "processor" block of /proc/cpuinfo, reduced to the fields we use.
struct Processor {
    int package = 0;
    int coreId = -1;  // -1: not reported
    std::string modelName;
    std::string flags;
};

bool parseInt(std::string_view text, int& value) {
    const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    return result.ec == std::errc() && result.ptr == text.data() + text.size();
}

std::vector<Processor> parseProcessors(std::string_view text) {
    std::vector<Processor> processors;
    bool inProcessor = false;
    while (!text.empty()) {
        const auto end = text.find('\n');
        const std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) {
            if (trim(line).empty()) inProcessor = false;  // a blank line ends a processor block
            continue;
        }
        const std::string_view key = trim(line.substr(0, colon));
        const std::string_view value = trim(line.substr(colon + 1));
        if (key == "processor") {
            processors.emplace_back();
            inProcessor = true;
            continue;
        }
        if (!inProcessor) continue;
        Processor& current = processors.back();
        int number = 0;
        if (key == "physical id" && parseInt(value, number))
            current.package = number;
        else if (key == "core id" && parseInt(value, number))
            current.coreId = number;
        else if (key == "model name")
            current.modelName = value;
        else if (key == "flags" || key == "Features")
            current.flags = value;  // x86 / ARM
    }
    return processors;
}

std::vector<std::string> simdFeaturesOf(std::string_view flags) {
    std::set<std::string_view> present;
    while (!flags.empty()) {
        const auto space = flags.find(' ');
        const std::string_view word = flags.substr(0, space);
        if (!word.empty()) present.insert(word);
        flags = space == std::string_view::npos ? std::string_view{} : flags.substr(space + 1);
    }
    std::vector<std::string> features;
    for (const std::string_view feature : kSimdFeatures) {
        if (present.count(feature) != 0) features.emplace_back(feature);
    }
    return features;
}

}  // namespace

std::vector<CpuInfo> parseCpuInfo(std::string_view procCpuinfo) {
    const std::vector<Processor> processors = parseProcessors(procCpuinfo);
    std::map<int, std::vector<const Processor*>> packages;  // ordered by package id
    for (const Processor& processor : processors) packages[processor.package].push_back(&processor);

    std::vector<CpuInfo> cpus;
    for (const auto& [package, members] : packages) {
        CpuInfo cpu;
        cpu.logicalCores = static_cast<int>(members.size());
        const Processor& first = *members.front();
        if (!first.modelName.empty()) cpu.modelName = first.modelName;
        cpu.simdFeatures = simdFeaturesOf(first.flags);
        std::set<int> coreIds;
        const bool allHaveCoreIds = std::all_of(members.begin(), members.end(), [](const Processor* p) { return p->coreId >= 0; });
        if (allHaveCoreIds) {
            for (const Processor* member : members) coreIds.insert(member->coreId);
            cpu.physicalCores = static_cast<int>(coreIds.size());
        }
        cpus.push_back(std::move(cpu));
    }
    return cpus;
}

std::uint64_t parseMemTotalBytes(std::string_view procMeminfo) {
    constexpr std::string_view kKey = "MemTotal:";
    const auto at = procMeminfo.find(kKey);
    if (at == std::string_view::npos) return 0;
    std::string_view rest = procMeminfo.substr(at + kKey.size());
    rest = rest.substr(0, rest.find('\n'));
    rest = trim(rest);
    std::uint64_t kibibytes = 0;
    const auto result = std::from_chars(rest.data(), rest.data() + rest.size(), kibibytes);
    if (result.ec != std::errc() || result.ptr == rest.data()) return 0;
    if (trim(std::string_view(result.ptr, rest.data() + rest.size() - result.ptr)) != "kB") return 0;
    if (kibibytes > UINT64_MAX / 1024) return 0;
    return kibibytes * 1024;  // /proc/meminfo's "kB" means KiB
}

}  // namespace distlab
