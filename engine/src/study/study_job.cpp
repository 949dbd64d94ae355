#include "distlab/study/study_job.hpp"

namespace distlab {

StudyJob::StudyJob(Study study, StudyObserver* observer, bool predictStepTimes)
    : m_runner(std::move(study)), m_thread([this, observer, predictStepTimes] {
          m_runner.setPredictStepTimes(predictStepTimes);
          m_runner.run(observer);
          m_finished.store(true, std::memory_order_release);
      }) {}

StudyJob::~StudyJob() {
    m_runner.cancelAll();
    // m_thread joins as it is destroyed, before the runner it uses.
}

}  // namespace distlab
