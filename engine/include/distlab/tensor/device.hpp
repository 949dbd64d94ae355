#pragma once
// The project's one device name: a kind and an index, "cpu:0", "gpu:1". Run configs list their
// devices with it (io/run_config.hpp's DeviceName is this type) and every Tensor says where its
// storage lives with it. CPU devices are logical: they share the host's memory and are accounted
// one by one (device_memory.hpp).
#include <string>

namespace distlab {

struct Device {
    enum class Kind { Cpu, Gpu } kind = Kind::Cpu;
    int index = 0;

    static constexpr Device cpu(int index) { return Device{Kind::Cpu, index}; }
    static constexpr Device gpu(int index) { return Device{Kind::Gpu, index}; }

    constexpr bool isCpu() const { return kind == Kind::Cpu; }
    /// "cpu:0", "gpu:1"
    std::string toString() const { return (kind == Kind::Cpu ? "cpu:" : "gpu:") + std::to_string(index); }
    bool operator==(const Device&) const = default;
};

}  // namespace distlab
