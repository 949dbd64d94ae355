#pragma once
// What a person can do to a running parameter-server strategy: slow, pause or kill a worker,
// lose a server, switch between asynchronous and synchronous updates. Any thread; each takes
// effect at the worker's or the server's next step.
#include <cstdint>
#include <vector>

#include "distlab/distribute/partitioner.hpp"
#include "distlab/config/run_config.hpp"

namespace distlab {

struct WorkerStatus {
    bool alive = true;
    bool paused = false;
    double speed = 1.0;          ///< 0.1-1.0: a worker at 0.5 takes twice as long per step
    std::int64_t gradients = 0;  ///< gradients this worker has pushed
    std::int64_t updates = 0;    ///< updates that applied this worker's gradient (sync: averaged into)
};

class ParameterServerControls {
public:
    virtual ~ParameterServerControls() = default;
    virtual int workerCount() const = 0;
    virtual int serverCount() const = 0;
    virtual void setWorkerSpeed(int worker, double speed) = 0;
    virtual void setWorkerPaused(int worker, bool paused) = 0;
    /// The worker stops; a step it had not pushed is redone by another worker.
    virtual void killWorker(int worker) = 0;
    /// The next update fails with a TrainingError naming the server (resume from a checkpoint).
    virtual void killParameterServer(int server) = 0;
    virtual void setMode(ParameterServerMode mode) = 0;
    /// The session's speed limit, in updates per second (0: none). The workers, not the session,
    /// take it: a worker's gradient takes at least `workers / limit` seconds (asynchronous) or
    /// `1 / limit` (synchronous) at full speed, and 1/speed times that at its speed factor, so a
    /// straggler still pushes proportionally less often under any limit.
    virtual void setUpdateRateLimit(double updatesPerSecond) = 0;
    virtual double updateRateLimit() const = 0;
    virtual ParameterServerMode mode() const = 0;
    virtual WorkerStatus workerStatus(int worker) const = 0;
    /// Sets a worker's counts (gradients pushed, updates applied) to a checkpoint's, so a resumed run
    /// goes on counting from there. Not while a step runs.
    virtual void restoreWorkerCounts(int worker, std::int64_t gradients, std::int64_t updates) = 0;
    /// Where every variable shard lives.
    virtual const std::vector<ShardPlacement>& placements() const = 0;
};

}  // namespace distlab
