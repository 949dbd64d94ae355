#pragma once
// What train and bench add to their JSON line for a split model (pipeline, model_parallel): the
// clock the figures are on, each device's measured bubble fraction and the schedule's closed form.
#include <nlohmann/json.hpp>

#include "distlab/distribute/pipeline_schedule.hpp"
#include "distlab/distribute/trainer.hpp"

namespace distlab::cli {

/// Whether the run splits its model across devices (the keys below apply).
bool splitsModel(const RunConfig& config);
/// Adds "clock", "bubble_fraction" (one per device, from `meter`'s steps),
/// "bubble_fraction_theory" (null where no closed form applies) and, from the `last` step,
/// "activation_peak_bytes" and "activation_peak_micro_batches" (one per device) to `out`.
void addPipelineFigures(nlohmann::ordered_json& out, const Trainer& trainer, const BubbleMeter& meter, const StepReport& last);

}  // namespace distlab::cli
