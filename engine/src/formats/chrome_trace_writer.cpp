#include "distlab/formats/chrome_trace_writer.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "json_append.hpp"

namespace distlab {
namespace {

// What ends the JSON text after the last event; appended to every published version.
constexpr std::string_view kTraceEnd = "\n]}\n";

// {"name":"<kind>","ph":"M","pid":1,"tid":<tid>,"args":{"<argName>":<value>}}
void appendMetadataEvent(std::string& out, std::string_view kind, int tid, std::string_view argName, const std::string& argJson) {
    out += ",\n{\"name\":";
    json_append::string(out, kind);
    out += ",\"ph\":\"M\",\"pid\":1,\"tid\":";
    json_append::integer(out, tid);
    out += ",\"args\":{";
    json_append::string(out, argName);
    out += ':';
    out += argJson;
    out += "}}";
}

// A track's thread_name and thread_sort_index events.
void appendTrackName(std::string& out, int tid, std::string_view name, int sortIndex) {
    std::string argJson;
    json_append::string(argJson, name);
    appendMetadataEvent(out, "thread_name", tid, "name", argJson);
    argJson.clear();
    json_append::integer(argJson, sortIndex);
    appendMetadataEvent(out, "thread_sort_index", tid, "sort_index", argJson);
}

}  // namespace

void ChromeTraceWriter::nameTrack(int track, std::string_view name, int sortIndex) {
    if (m_closed) return;
    std::string text;
    appendTrackName(text, track, name, sortIndex);
    m_file.append(text);
}

Result<ChromeTraceWriter> ChromeTraceWriter::open(const std::string& path, std::string_view runName,
                                                  std::span<const std::string> deviceNames) {
    auto file = StagedFile::create(path);
    if (!file) return file.error();
    ChromeTraceWriter writer(std::move(*file));

    std::string text = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
    std::string argJson;
    json_append::string(argJson, "DistLab " + std::string(runName));
    // The first event has no leading comma; the helper writes one, so drop it.
    std::string first;
    appendMetadataEvent(first, "process_name", 0, "name", argJson);
    text += first.substr(2);
    for (std::size_t device = 0; device < deviceNames.size(); ++device)
        appendTrackName(text, static_cast<int>(device), deviceNames[device], static_cast<int>(device));
    writer.m_file.append(text);
    writer.m_event.reserve(256);
    return writer;
}

void ChromeTraceWriter::add(const TraceSpan& span) {
    if (m_closed) return;
    if (!std::isfinite(span.startUs) || !std::isfinite(span.durationUs)) {
        ++m_dropped;
        return;
    }
    std::string& event = m_event;
    event.clear();
    event += ",\n{\"name\":";
    json_append::string(event, span.name);
    event += ",\"cat\":";
    json_append::string(event, span.category.empty() ? span.name : span.category);
    event += ",\"ph\":\"X\",\"ts\":";
    json_append::number(event, span.startUs);
    event += ",\"dur\":";
    json_append::number(event, std::max(span.durationUs, 0.0));
    event += ",\"pid\":1,\"tid\":";
    json_append::integer(event, span.device);
    event += ",\"args\":{\"step\":";
    json_append::integer(event, span.step);
    if (span.microBatch >= 0) {
        event += ",\"micro_batch\":";
        json_append::integer(event, span.microBatch);
    }
    if (span.stage >= 0) {
        event += ",\"stage\":";
        json_append::integer(event, span.stage);
    }
    if (span.pack >= 0) {
        event += ",\"pack\":";
        json_append::integer(event, span.pack);
    }
    if (span.bytes >= 0) {
        event += ",\"bytes\":";
        json_append::integer(event, span.bytes);
        if (span.bytesFromRingFormula) event += ",\"bytes_from\":\"ring_formula\"";
    }
    event += "}}";
    m_file.append(event);
    ++m_spans;
}

Status ChromeTraceWriter::publish() {
    if (m_closed) return Error{m_file.path() + ": the trace was already closed"};
    return m_file.publish(kTraceEnd);
}

Status ChromeTraceWriter::close() {
    if (m_closed) return Error{m_file.path() + ": the trace was already closed"};
    m_closed = true;
    return m_file.close(kTraceEnd);
}

}  // namespace distlab
