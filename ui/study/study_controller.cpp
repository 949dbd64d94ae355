#include "study/study_controller.hpp"

#include <QMetaObject>

#include <algorithm>

#include <distlab/study/study_job.hpp>

namespace distlab::ui {

namespace {
constexpr int kPollIntervalMs = 100;  // curves of six variants copied ten times a second: well under a millisecond
}

/// Forwards a failed variant's message to the GUI thread (called on the job's thread).
class StudyController::Observer : public StudyObserver {
public:
    explicit Observer(StudyController* controller) : m_controller(controller) {}
    void onVariantState(int variant, VariantState state, const std::string& message) override {
        if (state != VariantState::Failed) return;
        const QString text = QString::fromStdString(message);
        QMetaObject::invokeMethod(
            m_controller, [controller = m_controller, variant, text] { emit controller->variantFailed(variant, text); },
            Qt::QueuedConnection);
    }

private:
    StudyController* m_controller;
};

StudyController::StudyController(QObject* parent) : QObject(parent) {
    m_poll.setInterval(kPollIntervalMs);
    connect(&m_poll, &QTimer::timeout, this, &StudyController::poll);
}

StudyController::~StudyController() { m_job.reset(); }

void StudyController::reset() {
    m_job.reset();  // cancels and joins
    const auto count = m_study.variants.size();
    m_progress.assign(count, VariantProgress{});
    m_curves.clear();
    m_curves.resize(count);  // default-constructed: empty curves of the runner's capacity
    m_rows.assign(count, StudyRow{});
    m_predictions.assign(count, std::nullopt);
    m_predictionNotes.assign(count, std::string());
    for (std::size_t v = 0; v < count; ++v) {
        m_rows[v].label = m_study.variants[v].label;
        m_progress[v].steps = m_study.variants[v].config.steps;
    }
    ++m_version;
}

void StudyController::setStudy(Study study) {
    m_job.reset();
    m_study = std::move(study);
    ++m_studyGeneration;
    reset();
    emit updated();
}

void StudyController::start(bool predictStepTimes) {
    if (!hasStudy()) return;
    reset();
    if (!m_observer) m_observer = std::make_unique<Observer>(this);
    m_finishedSignalled = false;
    m_predicting = predictStepTimes;
    m_job = std::make_unique<StudyJob>(m_study, m_observer.get(), predictStepTimes);
    m_poll.start();
    emit updated();
}

void StudyController::cancelAll() {
    if (m_job) m_job->runner().cancelAll();
}

void StudyController::cancel(int variant) {
    if (m_job && variant >= 0 && variant < variantCount()) m_job->runner().cancel(variant);
}

// As the copies say: running until the poll that copied the final rows.
bool StudyController::isRunning() const { return m_job && !m_finishedSignalled; }

void StudyController::setBaseline(int variant) {
    if (variant < 0 || variant >= variantCount() || variant == m_study.spec.baseline) return;
    m_study.spec.baseline = variant;
    ++m_version;
    emit updated();
}

void StudyController::poll() {
    if (!m_job) return;
    const StudyRunner& runner = m_job->runner();
    const bool ended = m_job->finished();  // read first: what follows is then final
    for (int v = 0; v < variantCount(); ++v) {
        const auto index = static_cast<std::size_t>(v);
        m_progress[index] = runner.progress(v);
        m_curves[index] = runner.curves(v);
        m_rows[index] = runner.row(v);
        m_predictions[index] = runner.prediction(v);
        m_predictionNotes[index] = runner.predictionNote(v);
    }
    // Predicting until a variant has started (they all are predicted before any trains).
    if (m_predicting)
        m_predicting =
            std::all_of(m_progress.begin(), m_progress.end(), [](const VariantProgress& p) { return p.state == VariantState::Waiting; }) &&
            !ended;
    ++m_version;
    // The copies of the poll that found the job ended are final: views drawing them see it ended.
    const bool justEnded = ended && !m_finishedSignalled;
    if (justEnded) {
        m_finishedSignalled = true;
        m_poll.stop();
    }
    emit updated();
    if (justEnded) emit finished();
}

}  // namespace distlab::ui
