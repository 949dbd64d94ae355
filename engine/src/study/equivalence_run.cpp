// EquivalenceRun: the variants' trainers stepped in lockstep on one thread and their weights
// compared with the baseline's after every update (docs/interfaces.md §13.7). One thread because
// what is measured is the arithmetic, not the speed: the order of the steps must not matter, and
// it does not (each trainer owns its data order and its replicas' threads).
#include "distlab/study/equivalence.hpp"

#include <cmath>
#include <exception>
#include <stdexcept>

#include "distlab/distribute/trainer.hpp"

namespace distlab {

struct EquivalenceRun::Lane {
    std::unique_ptr<Trainer> trainer;  ///< run()'s thread only
    bool comparable = false;           ///< same parameter layout as the baseline
    bool active = false;               ///< still stepping (run()'s thread only)
    double loss = 0.0;                 ///< the last update's loss (run()'s thread only)
    // Published, guarded by EquivalenceRun::m_mutex:
    EquivalenceProgress progress;
    ThinnedSeries<EquivalencePoint> history;
    explicit Lane(std::size_t capacity) : history(capacity) {}
};

EquivalencePoint measureWeightDifference(std::span<const float> variant, std::span<const float> baseline,
                                         const std::vector<ParameterInfo>& infos) {
    EquivalencePoint point;
    for (std::size_t p = 0; p < infos.size(); ++p) {
        const auto offset = static_cast<std::size_t>(infos[p].offset);
        const auto size = static_cast<std::size_t>(infos[p].size);
        double scale = 0.0;
        for (std::size_t i = 0; i < size; ++i) scale = std::max(scale, double(std::fabs(baseline[offset + i])));
        // A parameter that is exactly zero everywhere (a bias before it moved) has no scale: its
        // differences count as absolute ones there.
        const double divisor = scale > 0.0 ? scale : 1.0;
        for (std::size_t i = 0; i < size; ++i) {
            const double difference = std::fabs(double(variant[offset + i]) - double(baseline[offset + i]));
            // NaN compares false: a diverged weight must still show as the largest difference.
            if (difference > point.maxAbsolute || std::isnan(difference)) point.maxAbsolute = difference;
            const double relative = difference / divisor;
            const bool larger = relative > point.maxRelative || (std::isnan(relative) && !std::isnan(point.maxRelative));
            if (point.parameter < 0 || larger) {
                point.maxRelative = relative;
                point.parameter = static_cast<int>(p);
                point.element = static_cast<std::int64_t>(i);
            }
        }
    }
    return point;
}

EquivalenceRun::EquivalenceRun(Study study, std::size_t historyCapacity) : m_study(std::move(study)), m_verdicts(classifyStudy(m_study)) {
    m_steps = m_study.variants.at(static_cast<std::size_t>(m_study.baseline())).config.steps;
    for (std::size_t v = 0; v < m_study.variants.size(); ++v) {
        auto lane = std::make_unique<Lane>(historyCapacity);
        lane->progress.steps = m_steps;
        m_lanes.push_back(std::move(lane));
    }
}

EquivalenceRun::~EquivalenceRun() {
    for (auto& lane : m_lanes)
        if (lane->trainer) lane->trainer->shutdown();
}

EquivalenceProgress EquivalenceRun::progress(int variant) const {
    const std::lock_guard lock(m_mutex);
    return m_lanes.at(static_cast<std::size_t>(variant))->progress;
}

std::vector<EquivalencePoint> EquivalenceRun::history(int variant) const {
    const std::lock_guard lock(m_mutex);
    return m_lanes.at(static_cast<std::size_t>(variant))->history.points();
}

std::string EquivalenceRun::parameterName(int parameter) const {
    const std::lock_guard lock(m_mutex);
    if (parameter < 0 || parameter >= static_cast<int>(m_parameterNames.size())) return {};
    return m_parameterNames[static_cast<std::size_t>(parameter)];
}

void EquivalenceRun::publish(int variant, VariantState state, const std::string& message) {
    Lane& lane = *m_lanes[static_cast<std::size_t>(variant)];
    if (state == VariantState::Finished || state == VariantState::Cancelled || state == VariantState::Failed) {
        lane.active = false;
        if (lane.trainer) lane.trainer->shutdown();  // parameter-server workers stop now, not at destruction
    }
    const std::lock_guard lock(m_mutex);
    lane.progress.state = state;
    if (!message.empty()) lane.progress.message = message;
}

void EquivalenceRun::run() {
    if (m_started.exchange(true)) throw std::logic_error("EquivalenceRun::run called twice");
    if (!buildTrainers()) return;
    while (m_lanes[static_cast<std::size_t>(m_study.baseline())]->active) {
        if (m_cancelled) return endActive(VariantState::Cancelled, {});
        if (!stepEach()) return endActive(VariantState::Failed, "the baseline failed");
        compareEach();
        if (m_lanes[static_cast<std::size_t>(m_study.baseline())]->trainer->stepsDone() >= m_steps) endActive(VariantState::Finished, {});
    }
}

void EquivalenceRun::endActive(VariantState state, const std::string& message) {
    for (int v = 0; v < variantCount(); ++v)
        if (m_lanes[static_cast<std::size_t>(v)]->active) publish(v, state, message);
}

bool EquivalenceRun::buildTrainers() {
    // Every trainer first, so that a data file missing fails before any update.
    for (int v = 0; v < variantCount(); ++v) {
        Lane& lane = *m_lanes[static_cast<std::size_t>(v)];
        if (m_cancelled) {
            publish(v, VariantState::Cancelled, {});
            continue;
        }
        publish(v, VariantState::Loading, {});
        try {
            auto created = Trainer::create(m_study.variants[static_cast<std::size_t>(v)].config);
            if (!created) {
                publish(v, VariantState::Failed, created.error().message);
                continue;
            }
            lane.trainer = std::move(*created);
            lane.active = true;
        } catch (const std::exception& error) {  // out of memory while building: this variant fails, not the lab
            publish(v, VariantState::Failed, error.what());
        }
    }
    Lane& base = *m_lanes[static_cast<std::size_t>(m_study.baseline())];
    if (!base.active) {
        if (m_cancelled)
            endActive(VariantState::Cancelled, {});
        else
            endActive(VariantState::Failed, "the baseline could not be built");
        return false;
    }
    const std::vector<ParameterInfo>& infos = base.trainer->primaryModel().store().infos();
    {
        const std::lock_guard lock(m_mutex);
        for (const ParameterInfo& info : infos) m_parameterNames.push_back(info.name);
    }
    for (int v = 0; v < variantCount(); ++v) {
        Lane& lane = *m_lanes[static_cast<std::size_t>(v)];
        if (!lane.active) continue;
        const auto& own = lane.trainer->primaryModel().store().infos();
        lane.comparable = own.size() == infos.size();
        for (std::size_t p = 0; lane.comparable && p < own.size(); ++p)
            lane.comparable = own[p].name == infos[p].name && own[p].offset == infos[p].offset && own[p].size == infos[p].size;
        publish(v, VariantState::Running, lane.comparable ? std::string() : "another parameter layout: its weights cannot be compared");
    }
    return true;
}

bool EquivalenceRun::stepEach() {
    // One update each, baseline first. A step's report is valid until the next call: keep its loss.
    for (int v = 0; v < variantCount(); ++v) {
        Lane& lane = *m_lanes[static_cast<std::size_t>(v)];
        if (!lane.active) continue;
        try {
            const StepReport& report = lane.trainer->step();
            if (!report.applied) throw std::runtime_error("no update could be applied at update " + std::to_string(report.step));
            lane.loss = report.loss;
        } catch (const std::exception& error) {  // a TrainingError, or anything else: this variant stops
            publish(v, VariantState::Failed, error.what());
            if (v == m_study.baseline()) return false;
        }
    }
    return true;
}

void EquivalenceRun::compareEach() {
    const int baseline = m_study.baseline();
    const Lane& base = *m_lanes[static_cast<std::size_t>(baseline)];
    const std::vector<ParameterInfo>& infos = base.trainer->primaryModel().store().infos();
    const std::span<const float> baselineWeights = base.trainer->primaryModel().store().values();
    const std::int64_t step = base.trainer->stepsDone();
    for (int v = 0; v < variantCount(); ++v) {
        Lane& lane = *m_lanes[static_cast<std::size_t>(v)];
        if (!lane.active) continue;
        const bool compared = lane.comparable && v != baseline;
        EquivalencePoint point;
        if (compared) {
            point = measureWeightDifference(lane.trainer->primaryModel().store().values(), baselineWeights, infos);
            point.lossDifference = std::fabs(lane.loss - base.loss);
        }
        point.step = step;
        const std::lock_guard lock(m_mutex);
        lane.progress.stepsDone = lane.trainer->stepsDone();
        lane.progress.latest = point;
        if (!compared) continue;
        lane.history.add(point);
        if (!lane.progress.compared || point.maxRelative > lane.progress.worst.maxRelative || std::isnan(point.maxRelative))
            lane.progress.worst = point;
        lane.progress.compared = true;
    }
}

}  // namespace distlab
