#pragma once
// Per-step metrics as JSON Lines: one object per line,
// {"step":..,"epoch":..,"loss":..,"learning_rate":..,"step_ms":..,"compute_ms":..,"optimizer_ms":..,
//  "comm_ms":..,"wait_ms":..,"bytes_communicated":..,"grad_norm_before":[..],"grad_norm_after":[..],
//  "replica_loss":[..]} plus "test_loss", "test_accuracy", "train_accuracy" when present, and
//  "bytes_from":"ring_formula" when the bytes are the ring all-reduce's formula rather than a count.
// Numbers use the shortest text that reads back exactly; NaN and infinities are written as null.
// The file is a StagedFile: the target is replaced only by publish() and close(), always with whole lines.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "distlab/core/error.hpp"
#include "distlab/files/staged_file.hpp"

namespace distlab {

/// One training step's metrics. The vectors hold one value per replica (reused between steps by
/// the caller, so filling a record allocates nothing once warmed up).
struct MetricsRecord {
    std::int64_t step = 0;
    std::int64_t epoch = 0;
    double loss = 0.0;
    double learningRate = 0.0;
    double stepMs = 0.0;  ///< wall time of the whole step, milliseconds
    // The step's phases (splitStep: means over the replicas that took part), milliseconds.
    double computeMs = 0.0;    ///< forward, loss and backward
    double optimizerMs = 0.0;  ///< applying the update
    double commMs = 0.0;       ///< the reduction, waiting for peers excluded
    double waitMs = 0.0;       ///< waiting for peers inside the reduction, then for the slowest replica
    std::int64_t bytesCommunicated = 0;
    bool bytesFromRingFormula = false;   ///< bytesCommunicated is the ring's formula (StepReport's): written as "bytes_from"
    std::vector<double> gradNormBefore;  ///< per replica, before reduction
    std::vector<double> gradNormAfter;   ///< per replica, after reduction
    std::vector<double> replicaLoss;     ///< per replica
    std::optional<double> testLoss;
    std::optional<double> testAccuracy;     ///< fraction in [0, 1]
    std::optional<double> trainAccuracy;    ///< fraction in [0, 1]
    std::optional<std::int64_t> worker;     ///< parameter servers, async: whose gradient was applied
    std::optional<std::int64_t> staleness;  ///< parameter servers: updates between the gradient's read and its apply
};

/// Writes MetricsRecords to a JSONL file through a large buffer. Not thread-safe: one thread.
class MetricsWriter {
public:
    /// Prepares the file at `path` (StagedFile::create): an existing file is left as it is until
    /// the first publish() or close(). Blocks on disk I/O.
    static Result<MetricsWriter> open(const std::string& path);

    /// Appends one line (buffered; no allocation once the line buffer has grown). The first write
    /// error is kept and returned by publish() and close(). Ignored after close().
    void write(const MetricsRecord& record);
    /// Replaces the file with every line written so far (atomically; see StagedFile::publish).
    Status publish();
    /// Publishes and closes; returns the first error, naming the file. Blocks on disk I/O.
    Status close();

    /// Lines written so far.
    std::int64_t lineCount() const { return m_lines; }

private:
    explicit MetricsWriter(StagedFile file);

    StagedFile m_file;
    std::string m_line;  ///< reused for every line
    std::int64_t m_lines = 0;
};

}  // namespace distlab
