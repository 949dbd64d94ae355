#pragma once
// Rare events of a session (never one per step). Called on the session's own thread: a GUI
// marshals them to its thread with a queued invocation; a CLI may act directly.
#include <string>

namespace distlab {

/// Loading: reading data and building the trainer. Paused: between steps, waiting for a command.
/// Running: stepping until paused. Stepping: one step asked for while paused (then Paused again).
/// Finished: the step limit was reached. Failed: loading or a step failed (onError says why).
/// Stopped: stop() ended the thread.
enum class SessionState { Loading, Paused, Running, Stepping, Finished, Failed, Stopped };

/// "paused", "running", ... (not toString: see configName in run_config.hpp).
const char* stateName(SessionState state);

class SessionObserver {
public:
    virtual ~SessionObserver() = default;
    virtual void onStateChanged(SessionState state) = 0;
    /// The run stopped on an error (bad data, a training failure); the message is for the user.
    virtual void onError(const std::string& message) = 0;
};

}  // namespace distlab
