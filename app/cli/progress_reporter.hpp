#pragma once
// Training progress on stderr: a redrawn bar on a terminal, a plain line every tenth of the
// run otherwise, at most ten updates a second either way. A run without a step limit (until
// interrupted) shows its step, loss and rate: redrawn on a terminal, a plain line every 10 s
// otherwise (the first at its first step).
#include <cstdint>

namespace distlab::cli {

class ProgressReporter {
public:
    /// `lastStep` 0: no limit.
    ProgressReporter(std::int64_t firstStep, std::int64_t lastStep, bool quiet);
    /// Reports that `step` is done; cheap when nothing is due to be printed.
    void update(std::int64_t step, double loss, double samplesPerSecond);
    /// Ends the bar's line.
    void finish();

private:
    void updateUnlimited(std::int64_t step, double loss, double samplesPerSecond);

    std::int64_t m_first;
    std::int64_t m_last;
    bool m_quiet;
    bool m_terminal;
    std::int64_t m_lastPrintNs = 0;
    std::int64_t m_nextPlainStep = 0;
    std::int64_t m_startNs;
    bool m_drawn = false;
};

}  // namespace distlab::cli
