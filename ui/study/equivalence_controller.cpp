#include "study/equivalence_controller.hpp"

#include <atomic>
#include <thread>

namespace distlab::ui {

/// The lab and the thread that runs it; the thread is joined before the lab goes.
struct EquivalenceController::Job {
    explicit Job(Study study)
        : run(std::move(study)), thread([this] {
              run.run();
              done.store(true, std::memory_order_release);
          }) {}
    ~Job() { run.cancel(); }  // then the thread joins, as it is declared last
    EquivalenceRun run;
    std::atomic<bool> done{false};
    std::jthread thread;
};

EquivalenceController::EquivalenceController(QObject* parent) : QObject(parent) {
    m_poll.setInterval(100);
    connect(&m_poll, &QTimer::timeout, this, &EquivalenceController::poll);
}

EquivalenceController::~EquivalenceController() = default;

void EquivalenceController::setStudy(Study study) {
    m_job.reset();
    m_poll.stop();
    m_study = std::move(study);
    // The verdicts come from the configs alone: shown before any update.
    m_verdicts = classifyStudy(m_study);
    m_progress.assign(m_study.variants.size(), EquivalenceProgress{});
    m_history.assign(m_study.variants.size(), {});
    emit updated();
}

void EquivalenceController::start() {
    if (!hasStudy()) return;
    m_job = std::make_unique<Job>(m_study);
    m_poll.start();
    poll();
}

void EquivalenceController::cancel() {
    if (m_job) m_job->run.cancel();
}

bool EquivalenceController::isRunning() const { return m_job && !m_job->done.load(std::memory_order_acquire); }

QString EquivalenceController::parameterName(int parameter) const {
    return m_job ? QString::fromStdString(m_job->run.parameterName(parameter)) : QString();
}

std::string EquivalenceController::csv() const { return m_job ? equivalenceCsv(m_job->run) : std::string(); }

void EquivalenceController::poll() {
    if (!m_job) return;
    const bool ended = m_job->done.load(std::memory_order_acquire);  // read first: what follows is then final
    for (int v = 0; v < variantCount(); ++v) {
        m_progress[static_cast<std::size_t>(v)] = m_job->run.progress(v);
        m_history[static_cast<std::size_t>(v)] = m_job->run.history(v);
    }
    emit updated();
    if (ended) {
        m_poll.stop();
        emit finished();
    }
}

}  // namespace distlab::ui
