#include "progress_reporter.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "distlab/comm/spin_barrier.hpp"

namespace distlab::cli {

ProgressReporter::ProgressReporter(std::int64_t firstStep, std::int64_t lastStep, bool quiet)
    : m_first(firstStep), m_last(lastStep), m_quiet(quiet), m_terminal(isatty(STDERR_FILENO) != 0), m_startNs(nowNs()) {
    m_nextPlainStep = m_first + std::max<std::int64_t>(1, (m_last - m_first) / 10);
}

namespace {
constexpr std::int64_t kUnlimitedPlainEveryNs = 10'000'000'000;
}  // namespace

void ProgressReporter::update(std::int64_t step, double loss, double samplesPerSecond) {
    if (m_quiet) return;
    if (m_last <= 0) {
        updateUnlimited(step, loss, samplesPerSecond);
        return;
    }
    const bool last = step >= m_last;
    if (m_terminal) {
        const std::int64_t now = nowNs();
        if (!last && now - m_lastPrintNs < 100'000'000) return;
        m_lastPrintNs = now;
        const double fraction = m_last > m_first ? double(step - m_first) / double(m_last - m_first) : 1.0;
        constexpr int kWidth = 30;
        const int filled = std::clamp(static_cast<int>(fraction * kWidth), 0, kWidth);
        const double elapsed = double(now - m_startNs) * 1e-9;
        const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0.0;
        std::fprintf(stderr, "\r[%s%s] %3d%%  step %lld/%lld  loss %.4f  %.0f samples/s  ETA %.0fs  ",
                     std::string(static_cast<std::size_t>(filled), '#').c_str(),
                     std::string(static_cast<std::size_t>(kWidth - filled), '.').c_str(), static_cast<int>(fraction * 100),
                     static_cast<long long>(step), static_cast<long long>(m_last), loss, samplesPerSecond, eta);
        m_drawn = true;
    } else if (step >= m_nextPlainStep || last) {
        std::fprintf(stderr, "step %lld/%lld loss %.6g samples/s %.0f\n", static_cast<long long>(step), static_cast<long long>(m_last),
                     loss, samplesPerSecond);
        m_nextPlainStep = step + std::max<std::int64_t>(1, (m_last - m_first) / 10);
    }
}

void ProgressReporter::updateUnlimited(std::int64_t step, double loss, double samplesPerSecond) {
    const std::int64_t now = nowNs();
    const std::int64_t every = m_terminal ? 100'000'000 : kUnlimitedPlainEveryNs;
    if (m_lastPrintNs != 0 && now - m_lastPrintNs < every) return;
    m_lastPrintNs = now;
    if (m_terminal) {
        std::fprintf(stderr, "\rstep %lld  loss %.4f  %.0f samples/s  (no step limit: Ctrl-C stops)  ", static_cast<long long>(step), loss,
                     samplesPerSecond);
        m_drawn = true;
    } else {
        std::fprintf(stderr, "step %lld (no limit) loss %.6g samples/s %.0f\n", static_cast<long long>(step), loss, samplesPerSecond);
    }
}

void ProgressReporter::finish() {
    if (m_drawn) std::fputc('\n', stderr);
    m_drawn = false;
}

}  // namespace distlab::cli
