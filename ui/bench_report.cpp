#include "bench_report.hpp"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "bridge/session_controller.hpp"
#include "distlab/comm/spin_barrier.hpp"
#include "distlab/files/atomic_file.hpp"

namespace distlab::ui {
namespace {
double percentile(std::vector<double> values, double p) {
    if (values.empty()) return 0.0;
    const auto index = static_cast<std::size_t>(p * double(values.size() - 1));
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(index), values.end());
    return values[index];
}

double residentMegabytes() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
    return 0.0;
}
}  // namespace

BenchReport::BenchReport(SessionController& controller, QString path, int warmupMs, QObject* parent)
    : QObject(parent), m_controller(controller), m_path(std::move(path)), m_warmupUntilNs(nowNs() + std::int64_t(warmupMs) * 1'000'000) {
    connect(&m_controller, &SessionController::ticked, this, &BenchReport::onTick);
}

void BenchReport::onTick() {
    if (m_tickMs.size() < 1'000'000) {
        m_tickMs.push_back(m_controller.lastTickMs());
        m_tickCpuMs.push_back(m_controller.lastTickCpuMs());
    }
    if (m_startSteps < 0 && nowNs() >= m_warmupUntilNs && m_controller.stepsDone() > 0) {
        m_startSteps = m_controller.stepsDone();
        m_startNs = nowNs();
    }
}

bool BenchReport::write() {
    QJsonObject report;
    const std::int64_t steps = m_controller.stepsDone();
    const double seconds = m_startSteps >= 0 ? double(nowNs() - m_startNs) * 1e-9 : 0.0;
    const double stepsPerSecond = seconds > 0 ? double(steps - m_startSteps) / seconds : 0.0;
    report["steps"] = double(steps);
    report["measured_seconds"] = seconds;
    report["steps_per_sec"] = stepsPerSecond;
    report["samples_per_sec"] = stepsPerSecond * double(m_controller.config().samplesPerUpdate());
    report["replicas"] = double(m_controller.config().strategy.replicaCount());
    report["ticks"] = double(m_tickMs.size());
    report["tick_ms_p50"] = percentile(m_tickMs, 0.5);
    report["tick_ms_p95"] = percentile(m_tickMs, 0.95);
    report["tick_ms_max"] = m_tickMs.empty() ? 0.0 : *std::max_element(m_tickMs.begin(), m_tickMs.end());
    report["tick_cpu_ms_p50"] = percentile(m_tickCpuMs, 0.5);
    report["tick_cpu_ms_p95"] = percentile(m_tickCpuMs, 0.95);
    report["tick_cpu_ms_max"] = m_tickCpuMs.empty() ? 0.0 : *std::max_element(m_tickCpuMs.begin(), m_tickCpuMs.end());
    report["dropped_records"] = double(m_controller.droppedRecords());
    report["rss_mb"] = residentMegabytes();
    const QByteArray text = QJsonDocument(report).toJson();
    const Status written = writeFileAtomically(QFile::encodeName(m_path).toStdString(),
                                               std::string_view(text.constData(), static_cast<std::size_t>(text.size())));
    if (!written) {
        std::fprintf(stderr, "error: %s\n", written.error().message.c_str());
        return false;
    }
    return true;
}

}  // namespace distlab::ui
