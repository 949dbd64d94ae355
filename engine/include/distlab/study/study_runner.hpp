#pragma once
// Runs a study's variants, one after another (the default) or all at once, each with its own
// Trainer, and builds one summary row and bounded curves per variant. Qt-free: the app calls run()
// on its engine thread and polls progress() and curves() from its GUI timer, the CLI calls run()
// on its main thread. Cancelling one variant or all is safe from any thread.
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "distlab/study/step_time_model.hpp"
#include "distlab/study/study.hpp"
#include "distlab/study/study_curves.hpp"
#include "distlab/study/study_summary.hpp"

namespace distlab {

/// What a GUI shows per variant while a study runs.
struct VariantProgress {
    VariantState state = VariantState::Waiting;
    std::int64_t stepsDone = 0;
    std::int64_t steps = 0;                                  ///< the variant's step count
    double loss = std::numeric_limits<double>::quiet_NaN();  ///< the latest update's
    double trainingSeconds = 0.0;
};

/// Hears from a running study. Called on the thread that runs the variant: run()'s caller in
/// sequential mode, the variant's own thread in simultaneous mode (so several at once). Must not
/// throw nor call the runner's run(); cancel() and the readers are fine.
class StudyObserver {
public:
    virtual ~StudyObserver() = default;
    /// `variant` moved to `state` (Loading, Running, then Finished, Cancelled or Failed); rare.
    /// `message` says why a variant failed (the row's message), empty otherwise.
    virtual void onVariantState(int /*variant*/, VariantState /*state*/, const std::string& /*message*/) {}
    /// `variant` applied an update; `report` is valid during the call; `test` is set on evaluated
    /// updates. Called once per update outside the timed part of the step: keep it short (the CLI
    /// writes a metrics line here; the app should poll instead).
    virtual void onStep(int /*variant*/, const StepReport& /*report*/, const std::optional<EvalResult>& /*test*/) {}
    /// `variant`'s step time was predicted (or found not to be predictable: StudyRunner::prediction
    /// is then empty and predictionNote says why); only with setPredictStepTimes(true), before any
    /// variant trains.
    virtual void onPredicted(int /*variant*/) {}
};

class StudyRunner {
public:
    explicit StudyRunner(Study study);
    ~StudyRunner();
    StudyRunner(const StudyRunner&) = delete;
    StudyRunner& operator=(const StudyRunner&) = delete;

    /// Runs every variant to its step count, cancellation or failure, and returns the rows (one
    /// per variant, in the study's order). Blocks until all have ended. Call once, from one thread
    /// (a second call throws std::logic_error).
    /// A variant that cannot be built (a data file missing) or fails in training ends Failed with
    /// the message; the others still run.
    std::vector<StudyRow> run(StudyObserver* observer = nullptr);

    /// Predict every variant's step time before any trains (StepTimeModel: a short calibration per
    /// model and algorithm on run()'s thread, one variant after another). Call before run().
    void setPredictStepTimes(bool predict) { m_predict = predict; }
    /// The variant's predicted step time once predicted; empty when not asked, not predicted yet,
    /// or not predictable (predictionNote says why). Any thread.
    std::optional<StepTimePrediction> prediction(int variant) const;
    /// Why a variant has no prediction ("the step-time model does not cover central_storage yet"); empty otherwise.
    std::string predictionNote(int variant) const;
    /// Every variant's prediction, in the study's order (makeStudyTable's third argument). Any thread.
    std::vector<std::optional<StepTimePrediction>> predictions() const;

    /// Stops `variant` before its next update (or keeps it from starting). Any thread.
    void cancel(int variant);
    /// Stops every variant. Any thread.
    void cancelAll();

    const Study& study() const { return m_study; }
    int variantCount() const { return static_cast<int>(m_study.variants.size()); }
    /// A copy of the variant's progress. Any thread; takes a short lock.
    VariantProgress progress(int variant) const;
    /// A copy of the variant's curves so far (at most a few thousand points). Any thread; short lock.
    StudyCurves curves(int variant) const;
    /// A copy of the variant's row so far (final once its state is Finished, Cancelled or Failed). Any thread.
    StudyRow row(int variant) const;

private:
    struct Lane;  ///< one variant's shared state (study_runner.cpp)
    void runVariant(int variant, StudyObserver* observer, bool measureMemory);
    void predictVariants(StudyObserver* observer);

    Study m_study;
    std::vector<std::unique_ptr<Lane>> m_lanes;
    std::atomic<bool> m_started{false};
    bool m_predict = false;
};

}  // namespace distlab
