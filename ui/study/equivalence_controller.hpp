#pragma once
// The app's handle on one equivalence lab: runs the engine's EquivalenceRun on a thread of its own
// and copies its progress and per-update differences on a 10 Hz timer into GUI-thread copies, as
// StudyController does for a study. The GUI never touches a trainer. GUI thread only.
#include <QObject>
#include <QTimer>

#include <memory>
#include <vector>

#include <distlab/study/equivalence.hpp>

namespace distlab::ui {

class EquivalenceController : public QObject {
    Q_OBJECT

public:
    explicit EquivalenceController(QObject* parent = nullptr);
    /// Cancels and joins a running lab (within one round of updates).
    ~EquivalenceController() override;

    /// Sets the study (stops a lab that runs); its verdicts are known at once, nothing runs until start().
    void setStudy(Study study);
    const Study& study() const { return m_study; }
    bool hasStudy() const { return !m_study.variants.empty(); }
    /// Steps every variant in lockstep from scratch.
    void start();
    void cancel();
    bool isRunning() const;

    int variantCount() const { return static_cast<int>(m_study.variants.size()); }
    const EquivalenceVerdict& verdict(int variant) const { return m_verdicts[static_cast<std::size_t>(variant)]; }
    const EquivalenceProgress& progress(int variant) const { return m_progress[static_cast<std::size_t>(variant)]; }
    const std::vector<EquivalencePoint>& history(int variant) const { return m_history[static_cast<std::size_t>(variant)]; }
    QString parameterName(int parameter) const;
    /// The CSV of the last (or running) lab, as `distlab-cli equivalence --csv` writes it.
    std::string csv() const;

    void setPollIntervalMs(int milliseconds) { m_poll.setInterval(milliseconds); }
    /// Copies the lab's state now (as the timer does).
    void poll();

signals:
    void updated();
    void finished();

private:
    struct Job;
    Study m_study;
    std::vector<EquivalenceVerdict> m_verdicts;
    std::vector<EquivalenceProgress> m_progress;
    std::vector<std::vector<EquivalencePoint>> m_history;
    std::unique_ptr<Job> m_job;
    QTimer m_poll;
};

}  // namespace distlab::ui
