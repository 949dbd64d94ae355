#pragma once
// The equivalence lab (docs/interfaces.md §13.7): a study's variants trained in lockstep, one update
// each in turn on one thread, their weights compared with the baseline's after every update. Each
// variant is classified up front: it must compute the same thing as the baseline (then any
// difference is float summation order, and the explanation names the order), or it may differ
// (and the reason says why: staleness, another batch, ...). Qt-free: the app runs run() on a
// worker thread and polls progress() and history(); the CLI runs it on its main thread.
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "distlab/model/parameter_store.hpp"
#include "distlab/study/study.hpp"
#include "distlab/study/study_curves.hpp"
#include "distlab/study/study_summary.hpp"

namespace distlab {

enum class EquivalenceClass {
    Baseline,   ///< the variant the others are compared with
    MustEqual,  ///< the same mathematics: differences can only come from float summation order
    MayDiffer,  ///< another computation: differences are expected
};
const char* equivalenceClassName(EquivalenceClass kind);  ///< "baseline", "must equal", "may differ"

struct EquivalenceVerdict {
    EquivalenceClass kind = EquivalenceClass::MayDiffer;
    /// Why it is in its class: "one device and mirrored compute the same update on the same global
    /// batch (docs/semantics.md §4.2)", "asynchronous parameter servers: ...staleness...".
    std::string reason;
    /// How the variant sums a step's gradient ("4 replicas each sum their 8 examples, then a ring
    /// ..."): where a must-equal variant's last bits come from.
    std::string summationOrder;
    /// For a must-equal variant: whether its order differs from the baseline's, so that exact zero
    /// is not to be expected, and the sentence a user reads.
    bool orderDiffers = false;
    std::string explanation;
};

/// Classifies `variant` against `baseline` from their configs alone (docs/semantics.md §4–6).
/// `sameSeedAndData` is the study's own check (files resolve by folder).
EquivalenceVerdict classifyEquivalence(const RunConfig& variant, const RunConfig& baseline, bool sameSeedAndData);

/// Every variant of `study` classified against its baseline (the baseline's own verdict is
/// EquivalenceClass::Baseline), in the study's order.
std::vector<EquivalenceVerdict> classifyStudy(const Study& study);

/// How a config sums one step's gradient, in words (the same text for the same order).
std::string summationOrder(const RunConfig& config);

/// One update's comparison of a variant with the baseline.
struct EquivalencePoint {
    std::int64_t step = 0;
    /// max |w_variant - w_baseline| over every weight.
    double maxAbsolute = 0.0;
    /// max over weights of |w_variant - w_baseline| / (largest |w_baseline| of the same parameter):
    /// relative to the parameter's scale, so a weight that happens to cross zero does not blow it up.
    double maxRelative = 0.0;
    int parameter = -1;           ///< where maxRelative is: the parameter's index in the store ...
    std::int64_t element = -1;    ///< ... and the element within it
    double lossDifference = 0.0;  ///< |loss_variant - loss_baseline| of this update
};

/// Compares two parameter buffers laid out by `infos` (the same model). Allocation-free.
EquivalencePoint measureWeightDifference(std::span<const float> variant, std::span<const float> baseline,
                                         const std::vector<ParameterInfo>& infos);

/// What a reader sees of one variant.
struct EquivalenceProgress {
    VariantState state = VariantState::Waiting;
    std::int64_t stepsDone = 0;
    std::int64_t steps = 0;
    bool compared = false;    ///< whether latest/worst hold anything
    EquivalencePoint latest;  ///< after the last update
    EquivalencePoint worst;   ///< the update with the largest relative difference so far
    std::string message;      ///< why it failed, or why its weights cannot be compared
};

class EquivalenceRun {
public:
    /// Every variant steps the baseline's step count. `historyCapacity` points are kept per variant
    /// (every update while they fit, then thinned as ThinnedSeries does).
    explicit EquivalenceRun(Study study, std::size_t historyCapacity = 2048);
    ~EquivalenceRun();
    EquivalenceRun(const EquivalenceRun&) = delete;
    EquivalenceRun& operator=(const EquivalenceRun&) = delete;

    /// Builds every trainer, then steps them in lockstep (baseline first, then each variant in
    /// study order) until the step count, cancel() or the baseline fails; a variant that fails
    /// alone stops alone. Blocks; call once (a second call throws std::logic_error).
    void run();
    /// Stops before the next update. Any thread.
    void cancel() { m_cancelled = true; }
    bool cancelled() const { return m_cancelled; }

    const Study& study() const { return m_study; }
    int variantCount() const { return static_cast<int>(m_study.variants.size()); }
    std::int64_t steps() const { return m_steps; }
    /// Fixed at construction; any thread.
    const EquivalenceVerdict& verdict(int variant) const { return m_verdicts.at(static_cast<std::size_t>(variant)); }
    /// Copies under a short lock; any thread.
    EquivalenceProgress progress(int variant) const;
    std::vector<EquivalencePoint> history(int variant) const;
    /// The baseline's parameter names once its trainer is built (empty before); any thread.
    std::string parameterName(int parameter) const;

private:
    struct Lane;
    void publish(int variant, VariantState state, const std::string& message);
    void endActive(VariantState state, const std::string& message);  ///< every variant still stepping
    bool buildTrainers();                                            ///< false: the baseline could not be built (or the lab was cancelled)
    bool stepEach();                                                 ///< one update per active variant; false: the baseline failed
    void compareEach();                                              ///< every active variant's weights against the baseline's, published

    Study m_study;
    std::int64_t m_steps = 0;
    std::vector<EquivalenceVerdict> m_verdicts;
    std::vector<std::unique_ptr<Lane>> m_lanes;
    std::vector<std::string> m_parameterNames;  ///< written once before any update, under m_mutex
    mutable std::mutex m_mutex;                 ///< guards the lanes' published state and m_parameterNames
    std::atomic<bool> m_cancelled{false};
    std::atomic<bool> m_started{false};
};

/// The app's ready lab for a run: one device (the baseline), mirrored 2 with ring, mirrored 4 with
/// hierarchical copy, accumulation 2 (those the global batch divides into), and asynchronous
/// parameter servers with 2 workers, each `steps` updates of the run's model, data and optimizer.
/// Errors name the variant whose config the run cannot take.
Result<Study> equivalenceStudyOf(const RunConfig& run, std::int64_t steps);

/// Every kept update of every compared variant as CSV: step,variant,class,max_abs_diff,
/// max_rel_diff,parameter,element,loss_diff (numbers with 9 significant digits).
std::string equivalenceCsv(const EquivalenceRun& run);

}  // namespace distlab
