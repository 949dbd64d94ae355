#pragma once
// What the app's exports write for a run without a step limit (steps 0, "until paused"): the
// updates it has trained, so a saved config, a PyTorch script or TensorFlow code trains what the
// run did (docs/interfaces.md §4) rather than nothing. GUI thread (pure functions).
#include <QString>

#include <cstdint>

#include <distlab/config/run_config.hpp>

namespace distlab::ui {

struct TrainedConfig {
    RunConfig config;
    QString note;  ///< for the status bar, "" when the steps are the config's own
};

/// `config` for a file, the run having trained `stepsDone` updates: steps 0 becomes `stepsDone`
/// when it trained any, with a note that says so; otherwise `config` as it is and no note.
TrainedConfig trainedConfig(const RunConfig& config, std::int64_t stepsDone);

}  // namespace distlab::ui
