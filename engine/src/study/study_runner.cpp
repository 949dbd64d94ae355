#include "distlab/study/study_runner.hpp"

#include <cmath>
#include <exception>
#include <stdexcept>
#include <thread>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/distribute/pipeline_placement.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/tensor/device_memory.hpp"

namespace distlab {

namespace {

/// Test examples of a periodic evaluation (the last one uses the whole test set): enough for a
/// target accuracy, cheap enough to run every few updates.
constexpr std::int64_t kEvalMaxExamples = 2048;

/// The bytes a variant adds on top of what was live when it started, summed over every device the
/// engine accounts. Only meaningful when nothing else allocates meanwhile: a sequential study.
class MemoryWindow {
public:
    void start() {
        for (int d = 0; d < kMaxMemoryDevices; ++d) {
            resetDeviceMemoryPeak(d);
            m_liveAtStart[d] = deviceMemory(d).liveBytes;
        }
    }
    std::int64_t peakBytes() const {
        std::int64_t sum = 0;
        for (int d = 0; d < kMaxMemoryDevices; ++d) sum += std::max<std::int64_t>(0, deviceMemory(d).peakBytes - m_liveAtStart[d]);
        return sum;
    }

private:
    std::int64_t m_liveAtStart[kMaxMemoryDevices] = {};
};

}  // namespace

struct StudyRunner::Lane {
    std::atomic<bool> cancelled{false};
    mutable std::mutex mutex;  ///< guards the three below: written by the variant's thread, copied by readers
    VariantProgress progress;
    StudyCurves curves;
    StudyRow row;
    std::optional<StepTimePrediction> prediction;
    std::string predictionNote;

    /// Publishes an applied update (and its evaluation) to the readers.
    void record(const VariantTally& tally, const StepReport& report, const std::optional<EvalResult>& test) {
        const StudyRow& latest = tally.row();
        const double stepMs = double(stepDurationNs(report)) * 1e-6;
        const PhaseSplit& split = tally.lastSplit();
        const std::lock_guard lock(mutex);
        curves.steps.add({report.step, latest.trainingSeconds, report.loss, report.accuracy >= 0 ? report.accuracy : std::nan(""), stepMs,
                          stepMs > 0 ? double(report.samples) * 1e3 / stepMs : 0.0, split[Phase::Compute] * 1e-6,
                          split[Phase::Communication] * 1e-6, waitingAndIdleNs(split) * 1e-6, split[Phase::Optimizer] * 1e-6});
        curves.timelines.add(report);
        if (test)
            curves.evaluations.add({report.step, latest.trainingSeconds, test->loss, test->accuracy >= 0 ? test->accuracy : std::nan("")});
        progress.stepsDone = report.step;
        progress.loss = report.loss;
        progress.trainingSeconds = latest.trainingSeconds;
        row = latest;
        row.state = VariantState::Running;
    }
};

StudyRunner::StudyRunner(Study study) : m_study(std::move(study)) {
    for (const StudyVariant& variant : m_study.variants) {
        auto lane = std::make_unique<Lane>();
        lane->progress.steps = variant.config.steps;
        lane->row.label = variant.label;
        m_lanes.push_back(std::move(lane));
    }
}

StudyRunner::~StudyRunner() = default;

void StudyRunner::cancel(int variant) {
    if (variant >= 0 && variant < variantCount()) m_lanes[static_cast<std::size_t>(variant)]->cancelled = true;
}

void StudyRunner::cancelAll() {
    for (auto& lane : m_lanes) lane->cancelled = true;
}

VariantProgress StudyRunner::progress(int variant) const {
    const Lane& lane = *m_lanes.at(static_cast<std::size_t>(variant));
    const std::lock_guard lock(lane.mutex);
    return lane.progress;
}

StudyCurves StudyRunner::curves(int variant) const {
    const Lane& lane = *m_lanes.at(static_cast<std::size_t>(variant));
    const std::lock_guard lock(lane.mutex);
    return lane.curves;
}

StudyRow StudyRunner::row(int variant) const {
    const Lane& lane = *m_lanes.at(static_cast<std::size_t>(variant));
    const std::lock_guard lock(lane.mutex);
    return lane.row;
}

std::optional<StepTimePrediction> StudyRunner::prediction(int variant) const {
    const Lane& lane = *m_lanes.at(static_cast<std::size_t>(variant));
    const std::lock_guard lock(lane.mutex);
    return lane.prediction;
}

std::string StudyRunner::predictionNote(int variant) const {
    const Lane& lane = *m_lanes.at(static_cast<std::size_t>(variant));
    const std::lock_guard lock(lane.mutex);
    return lane.predictionNote;
}

std::vector<std::optional<StepTimePrediction>> StudyRunner::predictions() const {
    std::vector<std::optional<StepTimePrediction>> all;
    for (int v = 0; v < variantCount(); ++v) all.push_back(prediction(v));
    return all;
}

void StudyRunner::predictVariants(StudyObserver* observer) {
    // One model for the study: variants that share a model and micro-batch, or an algorithm and
    // replica count, are measured once.
    StepTimeModel model;
    for (int v = 0; v < variantCount(); ++v) {
        Lane& lane = *m_lanes[static_cast<std::size_t>(v)];
        if (lane.cancelled) continue;
        Result<StepTimePrediction> predicted = Error{};
        try {
            predicted = model.predict(m_study.variants[static_cast<std::size_t>(v)].config);
        } catch (const std::exception& error) {  // a calibration that fails costs the prediction, not the study
            predicted = Error{error.what()};
        }
        {
            const std::lock_guard lock(lane.mutex);
            if (predicted)
                lane.prediction = *predicted;
            else
                lane.predictionNote = predicted.error().message;
        }
        if (observer != nullptr) observer->onPredicted(v);
    }
}

std::vector<StudyRow> StudyRunner::run(StudyObserver* observer) {
    if (m_started.exchange(true)) throw std::logic_error("StudyRunner::run called twice");
    if (m_predict) predictVariants(observer);
    if (m_study.spec.mode == StudyMode::Sequential) {
        for (int v = 0; v < variantCount(); ++v) runVariant(v, observer, true);
    } else {
        // Each variant on its own thread with its own trainer; they share the cores (and the
        // per-device memory accounting, so no peak memory is reported).
        std::vector<std::jthread> threads;
        for (int v = 0; v < variantCount(); ++v) threads.emplace_back([this, v, observer] { runVariant(v, observer, false); });
    }
    std::vector<StudyRow> rows;
    for (int v = 0; v < variantCount(); ++v) rows.push_back(row(v));
    return rows;
}

void StudyRunner::runVariant(int index, StudyObserver* observer, bool measureMemory) {
    Lane& lane = *m_lanes[static_cast<std::size_t>(index)];
    const StudyVariant& variant = m_study.variants[static_cast<std::size_t>(index)];
    const RunConfig& config = variant.config;
    VariantTally tally(variant.label, m_study.spec.targetAccuracy);
    auto publishState = [&](VariantState state, const std::string& message) {
        if (state == VariantState::Finished || state == VariantState::Cancelled || state == VariantState::Failed)
            tally.finish(state, message);
        {
            const std::lock_guard lock(lane.mutex);
            lane.progress.state = state;
            lane.row = tally.row();
            lane.row.state = state;
        }
        if (observer != nullptr) observer->onVariantState(index, state, message);
    };
    if (lane.cancelled) return publishState(VariantState::Cancelled, {});
    publishState(VariantState::Loading, {});
    MemoryWindow memory;
    if (measureMemory) memory.start();
    std::unique_ptr<Trainer> owned;
    try {
        auto created = Trainer::create(config);
        if (!created) {
            tally.setBuildFailed();
            return publishState(VariantState::Failed, created.error().message);
        }
        owned = std::move(*created);
    } catch (const std::exception& error) {  // out of memory while building: this variant fails, not the study
        return publishState(VariantState::Failed, error.what());
    }
    Trainer& trainer = *owned;
    if (config.strategy.type == StrategyKind::Pipeline || config.strategy.type == StrategyKind::ModelParallel)
        tally.measureBubbles(bubbleTheory(config, placeLayers(config, trainer.replicaModel(0))));
    publishState(VariantState::Running, {});

    const std::int64_t evalEvery = m_study.evalEvery(config.steps);
    const bool hasTest = !trainer.data().test.empty();
    VariantState outcome = VariantState::Finished;
    std::string message;
    bool finalTestDone = false;
    try {
        while (trainer.stepsDone() < config.steps) {
            if (lane.cancelled) {
                outcome = VariantState::Cancelled;
                break;
            }
            const std::int64_t before = nowNs();
            const StepReport& report = trainer.step();
            // On the virtual clock a step lasts what its placed passes span (the devices with a core each).
            const std::int64_t stepNs = config.clock == ClockMode::Virtual ? report.endNs - report.startNs : nowNs() - before;
            if (!report.applied) {
                outcome = VariantState::Failed;
                message = "no update could be applied at update " + std::to_string(trainer.stepsDone());
                break;
            }
            tally.addStep(report, stepNs);
            const bool last = trainer.stepsDone() >= config.steps;
            std::optional<EvalResult> test;
            if (hasTest && (last || report.step % evalEvery == 0))
                test = trainer.evaluate(trainer.data().test, last ? 0 : kEvalMaxExamples);
            if (test && last)
                tally.setFinalTest(*test);
            else if (test)
                tally.addAccuracy(test->accuracy);
            else if (!hasTest)
                tally.addAccuracy(report.accuracy);
            finalTestDone = test && last;
            lane.record(tally, report, test);
            if (observer != nullptr) observer->onStep(index, report, test);
            if (!std::isfinite(report.loss)) {
                outcome = VariantState::Failed;
                message = "training diverged: the loss is not finite at step " + std::to_string(report.step);
                break;
            }
        }
        // A variant stopped early still gets its test figures, for the table.
        if (hasTest && !finalTestDone && tally.row().steps > 0) tally.setFinalTest(trainer.evaluate(trainer.data().test));
    } catch (const std::exception& error) {  // a TrainingError, or anything else: this variant fails, the study goes on
        outcome = VariantState::Failed;
        message = error.what();
    }
    if (measureMemory) tally.setPeakMemory(memory.peakBytes());
    trainer.shutdown();
    publishState(outcome, message);
}

}  // namespace distlab
