#pragma once
// A run config as TensorFlow code (docs/interfaces.md §3.10): the tf.distribute program a TensorFlow
// user would write for the same run (the strategy and its cross-device ops, the Keras model, the
// loss scaled by the global batch, the optimizer, gradient accumulation in a custom training loop
// with strategy.run, variable synchronization and aggregation). For learners coming from
// TensorFlow: it is read, not run by DistLab (TensorFlow is not installed here), and checked by
// golden files and `python3 -m py_compile` (tests/engine/test_tensorflow_code.cpp).
#include <string>

#include "distlab/config/run_config.hpp"

namespace distlab {

/// The TensorFlow release line the code is written for (tf.keras being Keras 2).
inline constexpr const char* kTensorFlowVersionAssumed = "2.15";

/// The Python source (UTF-8, '\n' line ends) of `config` as TensorFlow 2 / Keras code. Every key that
/// changes the training has its TensorFlow counterpart in the code or a comment saying why TensorFlow
/// has none. Deterministic (the same config gives the same bytes); pure, cheap (no file, no data
/// loaded): the app may call it on the GUI thread. Any thread.
std::string tensorFlowCode(const RunConfig& config);

/// The file name the app and the CLI suggest for it: the run's name made file-safe, ".tf.py"
/// appended ("spiral-mirrored-4.tf.py"). Pure.
std::string tensorFlowCodeFileName(const RunConfig& config);

}  // namespace distlab
