#pragma once
// Rare events of a session (never one per step). Called on the session's own thread: a GUI
// marshals them to its thread with a queued invocation; a CLI may act directly.
#include <string>

namespace distlab {

enum class SessionState { Loading, Paused, Running, Finished, Failed, Stopped };

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
