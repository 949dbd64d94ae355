#pragma once
// Run ▸ Compare mirrored, async and sync (and the Servers view's Compare button): the current run's
// model, data and optimizer trained three ways, as a study in the study window, so that this
// comparison has the same charts, table, cursor and exports as any other. With N its replicas (or
// workers), every update consumes the same global batch G: mirrored G / N on each of N replicas,
// asynchronous parameter servers one worker's batch of G, synchronous ones N workers' batches of
// G / N, averaged. GUI thread (pure).
#include <cstdint>

#include <distlab/core/error.hpp>
#include <distlab/config/run_config.hpp>
#include <distlab/study/study.hpp>

namespace distlab::ui {

/// Updates each variant of the comparison trains unless asked otherwise.
inline constexpr std::int64_t kComparisonUpdates = 2000;

/// The study comparing `base` mirrored, with asynchronous and with synchronous parameter servers
/// (the global batch rounded down to a multiple of N), `updates` updates each; the mirrored
/// variant is the baseline. Errors: a variant whose config is invalid, named.
Result<Study> strategyComparison(const RunConfig& base, std::int64_t updates = kComparisonUpdates);

}  // namespace distlab::ui
