#pragma once
// Refuses, before anything large is allocated, a run whose model copies cannot fit in this
// machine's memory: a too-wide model would otherwise end in std::bad_alloc or in swapping.
#include <cstdint>

#include "distlab/core/error.hpp"
#include "distlab/config/run_config.hpp"
#include "distlab/model/model.hpp"

namespace distlab {

/// Bytes a run's model copies need at least: per copy, 16 bytes a parameter (value, gradient,
/// up to two optimizer slots) and 12 bytes per activation value of a micro-batch (output,
/// gradient, pre-activation).
std::uint64_t estimatedTrainingBytes(const RunConfig& config, const Model::Footprint& model);

/// Ok when estimatedTrainingBytes fits in `memoryBytes` (this machine's MemTotal when 0) with a
/// quarter to spare for the data, the process and the system; otherwise an error naming the
/// fields to change. Reads /proc/meminfo; any thread.
Status checkFitsInMemory(const RunConfig& config, const Model::Footprint& model, std::uint64_t memoryBytes = 0);

}  // namespace distlab
