#pragma once
// The live facts a lesson's question is checked against, read from the window's current run and
// views at the moment the learner asks ("max_staleness": the largest staleness in the Servers view's
// window). GUI thread.
#include <QString>

#include <functional>
#include <optional>

class QObject;

namespace distlab::ui {

class MainWindow;

/// The fact `name` as text ("4", "replica 0", "worker 3"), or nothing when the run cannot tell yet
/// (it has not trained, no such variable). replicas, workers and ring_steps are the live run's (the
/// lanes that reported its newest step, its parameter-server trainer), not a config's. Names:
/// replicas, workers, steps, ring_steps, max_staleness, slowest_worker, study_fastest (the study
/// window's finished variant with the most samples/s), varlab_read:<variable>,
/// varlab_read_copy:<variable>; the engine facts (isEngineFact: gradient_term_peak_bytes) come only
/// through askEngineFact.
std::optional<QString> lessonFact(MainWindow& window, const QString& name);
/// Whether `name` is read from the trainer on the run's session thread (gradient_term_peak_bytes).
bool isEngineFact(const QString& name);
/// Asks the current run for the engine fact `name` without waiting: done(fact, or nothing when the
/// run cannot tell) follows on the GUI thread at a later tick while `context` lives.
void askEngineFact(MainWindow& window, const QString& name, QObject* context, std::function<void(std::optional<QString>)> done);
/// Whether `name` is a fact lessonFact knows (checked when a lesson is loaded and by the tests).
bool isLessonFact(const QString& name);

}  // namespace distlab::ui
