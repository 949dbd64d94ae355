#pragma once
// What the run-config tests share: the example config of docs/interfaces.md §1.1 and small helpers.
#include <distlab/config/run_config_json.hpp>

#include <QString>

#include <string>

namespace distlab::testing {

// The example of docs/interfaces.md §1.1, verbatim.
inline const char* const kSpecExample = R"({
  "name": "fashion-mirrored-4",
  "seed": 1234,
  "model": {
    "layers": [
      {"type": "dense", "units": 256, "activation": "relu"},
      {"type": "dense", "units": 128, "activation": "relu", "name": "hidden"},
      {"type": "dense", "units": 10}
    ],
    "loss": "softmax_cross_entropy",
    "init": "glorot_uniform"
  },
  "data": {
    "source": "csv",
    "path": "train.csv",
    "test_path": "test.csv",
    "label_column": -1,
    "shuffle": true,
    "global_batch_size": 256
  },
  "optimizer": {"type": "sgd", "learning_rate": 0.01, "momentum": 0.0},
  "strategy": {
    "type": "mirrored",
    "devices": ["cpu:0", "cpu:1", "cpu:2", "cpu:3"],
    "cross_device_ops": "ring",
    "num_packs": 1,
    "gradient_accumulation_steps": 1
  },
  "precision": "float32",
  "steps": 1000
}
)";

inline QString q(const std::string& text) { return QString::fromStdString(text); }

inline QString errorOf(const Result<RunConfig>& result) {
    return result.ok() ? QStringLiteral("<parsed without error>") : q(result.error().message);
}

// A valid config with one extra "section" text spliced in at the top level.
inline std::string minimalWith(const std::string& extra) {
    return R"({"model": {"layers": [{"units": 4}, {"units": 2}]})" + (extra.empty() ? "" : ", " + extra) + "}";
}

inline DeviceName cpu(int index) { return DeviceName{DeviceName::Kind::Cpu, index}; }

}  // namespace distlab::testing
