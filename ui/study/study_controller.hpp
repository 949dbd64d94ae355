#pragma once
// The app's handle on one study: owns the StudyJob (its thread runs the variants), polls the
// runner's progress, curves and rows on a timer into GUI-thread copies, and turns the job's rare
// state changes into Qt signals. The GUI never touches a trainer. GUI thread only.
#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>
#include <vector>

#include <distlab/study/study.hpp>
#include <distlab/study/study_curves.hpp>
#include <distlab/study/study_runner.hpp>
#include <distlab/study/study_summary.hpp>

namespace distlab {
class StudyJob;
}

namespace distlab::ui {

class StudyController : public QObject {
    Q_OBJECT

public:
    explicit StudyController(QObject* parent = nullptr);
    /// Cancels and joins a running study (within one update of each running variant).
    ~StudyController() override;

    /// Sets the study to run (stops one that runs). Nothing runs until start().
    void setStudy(Study study);
    const Study& study() const { return m_study; }
    bool hasStudy() const { return !m_study.variants.empty(); }
    /// Runs every variant, as the study's mode says (fresh copies of what it showed before),
    /// predicting each one's step time first when `predictStepTimes` (StudyRunner::setPredictStepTimes).
    void start(bool predictStepTimes = false);
    /// Stops every variant (the rows keep what they reached).
    void cancelAll();
    /// Stops one variant.
    void cancel(int variant);
    bool isRunning() const;
    /// Sequential or simultaneous; applies at the next start().
    void setMode(StudyMode mode) { m_study.spec.mode = mode; }
    void setBaseline(int variant);

    int variantCount() const { return static_cast<int>(m_study.variants.size()); }
    const VariantProgress& progress(int variant) const { return m_progress[static_cast<std::size_t>(variant)]; }
    const StudyCurves& curves(int variant) const { return m_curves[static_cast<std::size_t>(variant)]; }
    /// Rows of every variant (final once the variant has ended).
    const std::vector<StudyRow>& rows() const { return m_rows; }
    /// Predicted step times, one per variant (empty where none); all empty when not asked.
    const std::vector<std::optional<StepTimePrediction>>& predictions() const { return m_predictions; }
    /// Why a variant has no prediction (empty otherwise).
    const std::vector<std::string>& predictionNotes() const { return m_predictionNotes; }
    bool predicting() const { return m_predicting; }
    /// Changes whenever the copies above change.
    std::uint64_t version() const { return m_version; }
    /// Changes whenever setStudy() gives another study (views built per variant rebuild then).
    std::uint64_t studyGeneration() const { return m_studyGeneration; }
    void setPollIntervalMs(int milliseconds) { m_poll.setInterval(milliseconds); }
    /// Copies the runner's state now (as the timer does).
    void poll();

signals:
    /// New progress, curves or rows (once per poll that found something new).
    void updated();
    /// Every variant has ended.
    void finished();
    void variantFailed(int variant, const QString& message);

private:
    class Observer;
    void reset();

    Study m_study;
    std::unique_ptr<Observer> m_observer;
    std::unique_ptr<StudyJob> m_job;  // after the observer: joined before it goes
    std::vector<VariantProgress> m_progress;
    std::vector<StudyCurves> m_curves;
    std::vector<StudyRow> m_rows;
    std::vector<std::optional<StepTimePrediction>> m_predictions;
    std::vector<std::string> m_predictionNotes;
    bool m_predicting = false;
    std::uint64_t m_version = 0;
    std::uint64_t m_studyGeneration = 0;
    bool m_finishedSignalled = true;
    QTimer m_poll;
};

}  // namespace distlab::ui
