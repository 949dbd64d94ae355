#include "lessons/lesson_facts.hpp"

#include <QRegularExpression>
#include <QTabWidget>
#include <QTimer>

#include <limits>

#include "bridge/cluster_run.hpp"
#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "main_window.hpp"
#include "study/study_controller.hpp"
#include "study/study_window.hpp"
#include "varlab/variable_lab_panel.hpp"

namespace distlab::ui {

namespace {

QString number(std::int64_t value) { return QString::number(value); }

VariableLabPanel* variableLab(MainWindow& window) { return window.findChild<VariableLabPanel*>(); }

// The value a card's cross-replica read line names ("Cross-replica read returns 3 (SUM ...)").
std::optional<QString> readValue(MainWindow& window, const QString& variable) {
    VariableLabPanel* lab = variableLab(window);
    if (lab == nullptr) return std::nullopt;
    static const QRegularExpression returns(QStringLiteral("returns (\\S+)"));
    const QRegularExpressionMatch match = returns.match(lab->readText(variable));
    if (!match.hasMatch()) return std::nullopt;
    return match.captured(1);
}

/// The label of the study window's finished variant with the largest `value`; none while the study
/// runs or before a variant has finished.
template <typename Value>
std::optional<QString> studyVariantWithMost(MainWindow& window, Value value) {
    const StudyWindow* study = window.studyWindow();
    if (study == nullptr || study->controller().isRunning()) return std::nullopt;
    const StudyRow* most = nullptr;
    for (const StudyRow& row : study->controller().rows())
        if (row.state == VariantState::Finished && (most == nullptr || value(row) > value(*most))) most = &row;
    if (most == nullptr) return std::nullopt;
    return QString::fromStdString(most->label);
}

/// The live run's replicas (workers, for parameter servers): the lanes that reported the newest
/// step the window has drained, not what a config asks for; none before the first step.
std::optional<std::int64_t> liveReplicas(const RunHistory& history) {
    if (history.timelineCount() == 0) return std::nullopt;
    const int newest = history.timelineCount() - 1;
    std::int64_t lanes = 0;
    for (int replica = 0; replica < history.replicaCount(); ++replica)
        if (history.timelineRecord(newest, replica).step != 0) ++lanes;
    if (lanes == 0) return std::nullopt;
    return lanes;
}

}  // namespace

bool isLessonFact(const QString& name) {
    static const QStringList plain{QStringLiteral("replicas"),       QStringLiteral("workers"),
                                   QStringLiteral("processes"),      QStringLiteral("steps"),
                                   QStringLiteral("ring_steps"),     QStringLiteral("max_staleness"),
                                   QStringLiteral("slowest_worker"), QStringLiteral("gradient_term_peak_bytes"),
                                   QStringLiteral("study_fastest"),  QStringLiteral("study_most_communicating"),
                                   QStringLiteral("bubble_theory"),  QStringLiteral("allreduce_bytes_per_step")};
    return plain.contains(name) || name.startsWith(QStringLiteral("varlab_read:")) || name.startsWith(QStringLiteral("varlab_read_copy:"));
}

std::optional<QString> lessonFact(MainWindow& window, const QString& name) {
    SessionController& controller = window.controller();
    // replicas, workers and ring_steps come from the live run (its lanes, its trainer), never from
    // a config: what the learner is asked about is what trains.
    if (name == QLatin1String("replicas")) {
        const std::optional<std::int64_t> replicas = liveReplicas(controller.history());
        if (!replicas) return std::nullopt;
        return number(*replicas);
    }
    if (name == QLatin1String("bubble_theory")) {
        // The closed form of the schedule that trains (the Schedule tab's), as a whole percentage.
        const std::shared_ptr<const ScheduleSnapshot> schedule = controller.schedule();
        if (!schedule || !schedule->theory) return std::nullopt;
        return QStringLiteral("%1 %").arg(qRound(*schedule->theory * 100.0));
    }
    if (name == QLatin1String("allreduce_bytes_per_step")) {
        // What cpu:0 sent in the latest step's collectives, as its lane counted them.
        const RunHistory& history = controller.history();
        if (history.timelineCount() == 0 || history.replicaCount() < 2) return std::nullopt;
        const ReplicaRecord& record = history.timelineRecord(history.timelineCount() - 1, 0);
        if (record.step == 0) return std::nullopt;
        return number(record.bytesSent);
    }
    if (name == QLatin1String("workers")) {
        const ParameterServerControls* servers = controller.parameterServerControls();
        if (servers == nullptr) return std::nullopt;
        return number(servers->workerCount());
    }
    if (name == QLatin1String("processes")) {  // a cluster's tasks that have joined: each a process of its own
        const ClusterRun* cluster = controller.cluster();
        if (cluster == nullptr) return std::nullopt;
        std::int64_t joined = 0;
        for (const ClusterRun::Task& task : cluster->tasks()) joined += task.steps > 0 ? 1 : 0;
        if (joined < static_cast<std::int64_t>(cluster->tasks().size())) return std::nullopt;
        return number(joined);
    }
    if (name == QLatin1String("steps")) return number(controller.stepsDone());
    if (name == QLatin1String("ring_steps")) {  // reduce-scatter, then all-gather: N - 1 steps each
        const std::optional<std::int64_t> replicas = liveReplicas(controller.history());
        if (!replicas) return std::nullopt;
        return number(2 * (*replicas - 1));
    }
    const UpdateTally& updates = controller.history().updates();
    if (name == QLatin1String("max_staleness")) {
        if (updates.windowCount() == 0) return std::nullopt;
        return number(updates.windowMax());
    }
    if (name == QLatin1String("slowest_worker")) {
        if (updates.updates() == 0) return std::nullopt;
        int slowest = 0;
        for (int w = 1; w < updates.workerCount(); ++w)
            if (updates.applied(w) < updates.applied(slowest)) slowest = w;
        return QStringLiteral("worker %1").arg(slowest);
    }
    if (name == QLatin1String("study_fastest"))
        return studyVariantWithMost(window, [](const StudyRow& row) { return row.samplesPerSecond; });
    if (name == QLatin1String("study_most_communicating"))
        return studyVariantWithMost(window, [](const StudyRow& row) { return row.shares.communication + row.shares.waiting; });
    if (name.startsWith(QStringLiteral("varlab_read:"))) return readValue(window, name.section(QLatin1Char(':'), 1));
    if (name.startsWith(QStringLiteral("varlab_read_copy:"))) {
        const QString variable = name.section(QLatin1Char(':'), 1);
        const std::optional<QString> read = readValue(window, variable);
        VariableLabPanel* lab = variableLab(window);
        if (!read || lab == nullptr) return std::nullopt;
        const QStringList copies = lab->copyTexts(variable);
        const qsizetype same = copies.indexOf(*read);
        // Which copy the read returned; when it equals none of them it was computed from them.
        return same >= 0 ? QStringLiteral("replica %1").arg(same) : QStringLiteral("none of the copies");
    }
    return std::nullopt;
}

bool isEngineFact(const QString& name) { return name == QLatin1String("gradient_term_peak_bytes"); }

void askEngineFact(MainWindow& window, const QString& name, QObject* context, std::function<void(std::optional<QString>)> done) {
    SessionController& controller = window.controller();
    if (!isEngineFact(name) || controller.stepsDone() <= 0) {
        // Told later all the same: the caller handles one way of answering.
        QTimer::singleShot(0, context, [done = std::move(done)] { done(std::nullopt); });
        return;
    }
    // The trainer belongs to its session thread: only a task there may read it.
    controller.askTrainer(
        context, [](Trainer& trainer) { return trainer.gradientAggregation().peakBytes; },
        [done = std::move(done)](std::optional<std::int64_t> peak) {
            done(peak && *peak >= 0 ? std::optional<QString>(number(*peak)) : std::nullopt);
        });
}

}  // namespace distlab::ui
