#pragma once
// The step-time model's measurements on this machine (step_time_model.hpp says what each is for).
// Every time is a medianNsPerCall (model/layer_timing.hpp).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/core/error.hpp"
#include "distlab/config/run_config.hpp"
#include "distlab/study/step_time_model.hpp"
#include "model/layer_timing.hpp"  // medianNsPerCall

namespace distlab {

/// One model's pieces at `rows` rows per micro-batch: `concurrent` copies (each its own model,
/// optimizer and buffers, `threads` OpenMP threads) time each piece at the same moment, and the
/// result is their mean. `oneDevice` is the variant as a one-device run of `rows` rows
/// (threads set); its data is loaded. With `withStep`, also runs that one-device run and sets
/// otherNs to its measured step minus the pieces and the update.
struct RowsMeasurement {
    MicroBatchTimes micro;
    double optimizerNs = 0.0;
    std::int64_t parameters = 0;
};
Result<RowsMeasurement> measureRows(const RunConfig& oneDevice, int concurrent, bool withStep);

/// The alpha-beta line of `algorithm` on `replicas` ranks, fitted to measureAllReduce at 1/4 to 2
/// times `packBytes`.
AlphaBeta measureReduction(CrossDeviceOps algorithm, int replicas, std::int64_t packBytes);
/// What `replicas` mirrored replicas add to a step of a minimal model (two output units, one row
/// per replica) over one device: starting and joining the replica threads, `packs` all-reduces of
/// a few bytes each, the waiting in them. The minimal parameters: minimalModelParameters.
Result<double> measureMirroredProtocol(CrossDeviceOps algorithm, int replicas, std::int64_t packs, int threadsPerReplica);
/// The minimal model's parameters: 2 x 2 weights and 2 biases.
inline constexpr std::int64_t kMinimalModelParameters = 6;
/// One parameter-server transport copy (a pull or a push) at 1/4 to 2 times `bytes`.
AlphaBeta measureTransport(std::int64_t bytes);
/// A parameter-server update of `workers` workers in `mode` on a minimal model (two output units,
/// a one-row batch): the protocol's own cost per update.
Result<double> measureServerUpdate(ParameterServerMode mode, int workers);
/// The mean step of `config`'s model, data, optimizer and batch as a synchronous parameter-server
/// run of one worker (no straggler): measured twice, each with a trainer of its
/// own, the faster counting. What the step-time model reads a model's hand-off cost from.
Result<double> measureOneWorkerServerStep(const RunConfig& config);
/// How much longer than asked a straggler's short sleep lasts (timer slack, wake-up).
double measureSleepOvershoot();

}  // namespace distlab
