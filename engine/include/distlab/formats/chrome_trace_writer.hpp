#pragma once
// Chrome trace (Trace Event Format) files, openable in Perfetto and chrome://tracing:
// {"displayTimeUnit":"ms","traceEvents":[metadata events naming the process "DistLab <run>" and
// one thread per device, then complete events {"ph":"X","ts":..,"dur":..,"pid":1,"tid":device}]}.
// Spans stream to a StagedFile (memory stays bounded on long runs); publish() and close() replace the
// target with the spans so far and the closing "]}", so the file is valid JSON whenever it exists.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "distlab/core/error.hpp"
#include "distlab/files/staged_file.hpp"

namespace distlab {

/// One span of work on one device's track.
struct TraceSpan {
    int device = 0;                     ///< track: index into the device names given to open()
    std::string_view name;              ///< "compute", "communication", "idle", "optimizer", ...
    std::string_view category;          ///< the event's "cat"; empty: same as name
    std::int64_t step = 0;              ///< training step, written as args.step
    double startUs = 0.0;               ///< microseconds since the run started
    double durationUs = 0.0;            ///< microseconds
    int microBatch = -1;                ///< written as args.micro_batch when >= 0
    int pack = -1;                      ///< written as args.pack when >= 0
    std::int64_t bytes = -1;            ///< written as args.bytes when >= 0
    bool bytesFromRingFormula = false;  ///< bytes is the ring's formula, not a count: args.bytes_from "ring_formula"
    int stage = -1;                     ///< a split model's pass: written as args.stage when >= 0
};

/// Streams TraceSpans into a Chrome trace file. Not thread-safe: one thread at a time.
class ChromeTraceWriter {
public:
    /// Starts a trace for `path` (the target is untouched until publish() or close()) with process
    /// "DistLab <runName>" and one named track per device ("cpu:0", ...). Blocks on disk I/O.
    static Result<ChromeTraceWriter> open(const std::string& path, std::string_view runName, std::span<const std::string> deviceNames);

    ChromeTraceWriter(ChromeTraceWriter&&) noexcept = default;
    ChromeTraceWriter& operator=(ChromeTraceWriter&&) noexcept = default;
    /// Without close(), `path` keeps its last published version (or stays as it was).
    ~ChromeTraceWriter() = default;

    /// Names one more track `track` (past the devices given to open()), shown in `sortIndex`'s
    /// place among them (ties go by track number). Before its spans.
    void nameTrack(int track, std::string_view name, int sortIndex);
    /// Appends one complete event (buffered; no allocation once the event buffer has grown).
    /// Spans with a non-finite start or duration are dropped; a negative duration becomes 0.
    void add(const TraceSpan& span);
    /// Replaces the file, atomically, with a valid trace of the spans so far; adding goes on. Blocks.
    Status publish();
    /// Publishes and closes; the first error names the file. Blocks.
    Status close();

    /// Spans written so far.
    std::int64_t spanCount() const { return m_spans; }
    /// Spans dropped because their times were not finite.
    std::int64_t droppedCount() const { return m_dropped; }

private:
    explicit ChromeTraceWriter(StagedFile file) : m_file(std::move(file)) {}

    StagedFile m_file;
    std::string m_event;  ///< reused for every event
    std::int64_t m_spans = 0;
    std::int64_t m_dropped = 0;
    bool m_closed = false;
};

}  // namespace distlab
