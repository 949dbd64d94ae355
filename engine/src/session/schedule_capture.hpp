#pragma once
// Turns a split model's steps into ScheduleSnapshots for the GUI: keeps the run's bubble meter
// (every step counts) and, when asked, takes the step's passes from its spans. Session thread only.
#include <memory>
#include <optional>

#include "distlab/distribute/pipeline_schedule.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/telemetry/schedule_snapshot.hpp"

namespace distlab {

class ScheduleCapture {
public:
    /// For a pipeline or model_parallel trainer; null for the strategies that split nothing.
    static std::unique_ptr<ScheduleCapture> forTrainer(const Trainer& trainer);

    /// Counts the step in the run's bubbles.
    void add(const StepReport& report) { m_meter.add(report); }
    /// The step's schedule (its spans are valid until the next step).
    std::shared_ptr<const ScheduleSnapshot> take(const StepReport& report) const;

private:
    ScheduleCapture(const Trainer& trainer, std::optional<double> theory);

    ScheduleSnapshot m_shape;  ///< what every snapshot of the run shares
    RunConfig m_config;        ///< the run's, for its schedule simulated at measured pass times
    BubbleMeter m_meter;
};

}  // namespace distlab
