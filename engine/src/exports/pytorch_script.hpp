#pragma once
// The text of an exported PyTorch script (docs/interfaces.md §3.9): the run's description as a
// Python literal and the names of its two files, followed by a fixed body that reads them.
// Engine-internal; pytorch_export.cpp decides what the description holds.
#include <string>

#include "distlab/exports/pytorch_export.hpp"
#include "exports/python_text.hpp"  // pythonLiteral

namespace distlab {

/// The whole script: `runLiteral` (pythonLiteral of the run's description: layers, loss, optimizer,
/// replicas, batch, steps) as RUN, and `files` (names relative to the script's folder). Pure.
std::string pyTorchScript(const std::string& runName, const std::string& runLiteral, const PyTorchExportFiles& files);

}  // namespace distlab
