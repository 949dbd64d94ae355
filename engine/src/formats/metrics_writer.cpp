#include "distlab/formats/metrics_writer.hpp"

#include <span>
#include <utility>

#include "json_append.hpp"

namespace distlab {
namespace {

void appendField(std::string& line, const char* key, double value) {
    line += key;
    json_append::number(line, value);
}

void appendArray(std::string& line, const char* key, std::span<const double> values) {
    line += key;
    line += '[';
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0) line += ',';
        json_append::number(line, values[i]);
    }
    line += ']';
}

}  // namespace

Result<MetricsWriter> MetricsWriter::open(const std::string& path) {
    auto file = StagedFile::create(path);
    if (!file) return file.error();
    return MetricsWriter(std::move(*file));
}

MetricsWriter::MetricsWriter(StagedFile file) : m_file(std::move(file)) { m_line.reserve(512); }

void MetricsWriter::write(const MetricsRecord& record) {
    if (m_file.closed()) return;
    std::string& line = m_line;
    line.clear();
    line += "{\"step\":";
    json_append::integer(line, record.step);
    line += ",\"epoch\":";
    json_append::integer(line, record.epoch);
    appendField(line, ",\"loss\":", record.loss);
    appendField(line, ",\"learning_rate\":", record.learningRate);
    appendField(line, ",\"step_ms\":", record.stepMs);
    appendField(line, ",\"compute_ms\":", record.computeMs);
    appendField(line, ",\"optimizer_ms\":", record.optimizerMs);
    appendField(line, ",\"comm_ms\":", record.commMs);
    appendField(line, ",\"wait_ms\":", record.waitMs);
    line += ",\"bytes_communicated\":";
    json_append::integer(line, record.bytesCommunicated);
    if (record.bytesFromRingFormula) line += ",\"bytes_from\":\"ring_formula\"";
    appendArray(line, ",\"grad_norm_before\":", record.gradNormBefore);
    appendArray(line, ",\"grad_norm_after\":", record.gradNormAfter);
    appendArray(line, ",\"replica_loss\":", record.replicaLoss);
    if (record.testLoss) appendField(line, ",\"test_loss\":", *record.testLoss);
    if (record.testAccuracy) appendField(line, ",\"test_accuracy\":", *record.testAccuracy);
    if (record.trainAccuracy) appendField(line, ",\"train_accuracy\":", *record.trainAccuracy);
    if (record.worker) {
        line += ",\"worker\":";
        json_append::integer(line, *record.worker);
    }
    if (record.staleness) {
        line += ",\"staleness\":";
        json_append::integer(line, *record.staleness);
    }
    line += "}\n";
    m_file.append(line);
    ++m_lines;
}

Status MetricsWriter::publish() { return m_file.publish(); }

Status MetricsWriter::close() { return m_file.close(); }

}  // namespace distlab
