#pragma once
// One rank of a mirrored, central-storage or one-device run: its own copy of the model, its
// optimizer, its step buffers. It touches only its own memory and reaches the other ranks only
// through its Communicator: the gradient, the step's loss and accuracy, and (central storage) the
// variables all travel through collectives. So a rank can be a thread (MirroredTrainer runs one
// per logical device), a process or a host without a change here.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "distlab/comm/communicator.hpp"
#include "distlab/comm/gradient_packer.hpp"
#include "distlab/data/dataset.hpp"
#include "distlab/telemetry/step_report.hpp"
#include "distlab/config/run_config.hpp"
#include "distlab/model/loss.hpp"
#include "distlab/model/model.hpp"
#include "distlab/optim/optimizer.hpp"

namespace distlab {

struct ReplicaBatch;        // distribute/replica_step.hpp
class OverlappedReduction;  // distribute/overlapped_reduction.hpp

/// Values in a step's figures (loss sum, correct, examples): they ride on the gradient's last pack,
/// so each rank sends these float32 values to each of its peers on top of the gradient.
inline constexpr std::size_t kStepFigureValues = 3;

/// The step's figures over every rank, the same on each (they come out of one all-reduce).
struct GlobalStepStats {
    double lossSum = 0.0;       ///< per-example losses of the whole global batch, summed
    std::int64_t correct = 0;   ///< correct predictions in the global batch
    std::int64_t examples = 0;  ///< examples in the global batch
};

class MirroredRank {
public:
    /// Rank communicator.rank() of communicator.size(), for `config` (a validated mirrored,
    /// central_storage or one_device config) on inputs of `features` values. Build it under a
    /// DeviceMemoryScope of its device so that its buffers count there (its steps set it
    /// themselves). `config` must outlive the rank. Times are nanoseconds since `clockOriginNs` (steady clock). The parameters
    /// are not initialised: call initialize() on rank 0 and broadcastParameters() on every rank.
    /// With `overlapReduction` (a mirrored rank of more than one: multi-worker runs, whose
    /// reduction crosses processes) and more than one pack, each pack's all-reduce runs on a thread
    /// of the rank's own while backward goes on (OverlappedReduction); the same sums, the same bits.
    MirroredRank(const RunConfig& config, std::int64_t features, Communicator& communicator, std::int64_t clockOriginNs,
                 bool overlapReduction = false);
    ~MirroredRank();
    MirroredRank(const MirroredRank&) = delete;
    MirroredRank& operator=(const MirroredRank&) = delete;

    /// One optimizer step over this rank's shard of `batch` (the global batch's sample indices):
    /// forward, loss, backward (with accumulation), the gradient's all-reduce pack by pack, the
    /// step's figures' all-reduce, the update, and under central storage the variables'
    /// broadcast from rank 0. Collective: every rank calls it with the same batch and rate.
    /// Allocation-free once warmed up. Throws TrainingError after failNextStep().
    void step(const Dataset& data, std::span<const std::int64_t> batch, float learningRate);
    /// Copies rank 0's parameters to every rank (after initialising or loading them). Collective.
    void broadcastParameters();

    /// This rank's part of the last step.
    const ReplicaStepStats& stats() const { return m_stats; }
    /// The last step's figures over every rank.
    const GlobalStepStats& global() const { return m_global; }
    int rank() const { return m_communicator.rank(); }
    Model& model() { return m_model; }
    const Model& model() const { return m_model; }
    Optimizer& optimizer() { return *m_optimizer; }
    Communicator& communicator() { return m_communicator; }
    /// The activations of the last micro-batch this rank ran (gradient-aggregation figures).
    const ModelContext& lastContext() const;

    /// Parameter elements (flat indices) whose value after each step stats() reports; -1 or an
    /// index past the parameters reports 0. Between steps.
    void setWatched(std::span<const std::int64_t> flatIndices);
    /// Fault injection: the next step throws TrainingError(`message`) after computing the
    /// gradient, while the peers wait for this rank in the reduction (a lone rank that updates
    /// inside backward has by then applied the update). Between steps.
    void failNextStep(std::string message) { m_failure = std::move(message); }

private:
    std::int64_t clockNs() const;
    /// The gradient's packs all-reduced one after another on this thread, from `now`; each pack's
    /// span (and its network hop's) recorded. Returns the packs' records together; `now` ends
    /// with the last pack.
    CollectiveTiming reducePacks(std::int64_t& now, bool updates);
    /// The overlapped reduction's packs waited for and their spans (and network hops') recorded,
    /// on the reduction thread's lane, as they ran.
    CollectiveTiming finishOverlapped(OverlappedReduction& reduction);
    /// A pack's all-reduce span and, when it crossed processes, its network hop's.
    void addPackSpans(std::int64_t beginNs, std::int64_t endNs, const CollectiveTiming& pack, std::size_t index, bool overlapped);

    const RunConfig& m_config;
    Communicator& m_communicator;
    int m_device;
    bool m_centralStorage;
    std::int64_t m_clockOriginNs;
    LossFunction m_loss;
    Model m_model;
    std::unique_ptr<Optimizer> m_optimizer;
    GradientPacker m_packer;  ///< the gradient's packs (num_packs / bytes_per_pack), each reduced on its own
    std::unique_ptr<ReplicaBatch> m_batch;
    std::vector<double> m_gradientBlockSums;           ///< the update's scratch for the gradient's norm (reductions.hpp)
    SpanRecorder m_spans;                              ///< this rank's spans of the current step
    std::array<float, kStepFigureValues> m_figures{};  ///< loss sum, correct, examples: reduced like the gradient
    ReplicaStepStats m_stats;
    GlobalStepStats m_global;
    std::array<std::int64_t, kMaxWatchedValues> m_watched{};
    int m_watchedCount = 0;
    std::optional<std::string> m_failure;
    std::unique_ptr<OverlappedReduction> m_overlap;  ///< set when the reduction overlaps backward
};

}  // namespace distlab
