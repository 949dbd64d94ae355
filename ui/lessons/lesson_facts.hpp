#pragma once
// The live facts a lesson's question is checked against, read from the window's current run and
// views at the moment the learner asks ("max_staleness": the largest staleness in the Servers view's
// window). GUI thread.
#include <QString>

#include <optional>

namespace distlab::ui {

class MainWindow;

/// The fact `name` as text ("4", "replica 0", "worker 3"), or nothing when the run cannot tell yet
/// (it has not trained, no such variable). replicas, workers and ring_steps are the live run's (the
/// lanes that reported its newest step, its parameter-server trainer), not a config's. Names: replicas, workers, steps, ring_steps,
/// max_staleness, slowest_worker, gradient_term_peak_bytes, study_fastest (the study window's
/// finished variant with the most samples/s), varlab_read:<variable>, varlab_read_copy:<variable>.
std::optional<QString> lessonFact(MainWindow& window, const QString& name);
/// Whether `name` is a fact lessonFact knows (checked when a lesson is loaded and by the tests).
bool isLessonFact(const QString& name);

}  // namespace distlab::ui
