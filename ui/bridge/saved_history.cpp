#include "bridge/saved_history.hpp"

#include <array>
#include <charconv>
#include <cmath>

namespace distlab::ui {

namespace {

constexpr std::array<const char*, 6> kPointColumns{"step", "wall_seconds", "low", "high", "mean", "samples"};
constexpr const char* kMetricsTable = "metrics";

std::string flag(bool value) { return value ? "true" : "false"; }

std::string number(double value) {
    std::array<char, 32> text{};
    const auto end = std::to_chars(text.data(), text.data() + text.size(), value).ptr;
    return std::string(text.data(), end);
}

// A fact's value, or `fallback` when the record does not have it.
double numberFact(const RunRecord& record, const char* name, double fallback) {
    const auto found = record.facts.find(name);
    if (found == record.facts.end()) return fallback;
    double value = fallback;
    std::from_chars(found->second.data(), found->second.data() + found->second.size(), value);
    return value;
}

bool flagFact(const RunRecord& record, const char* name) {
    const auto found = record.facts.find(name);
    return found != record.facts.end() && found->second == "true";
}

// Finds `column` in `table`; -1 when absent.
int columnIndex(const RecordTable& table, const char* column) {
    for (std::size_t c = 0; c < table.columns.size(); ++c)
        if (table.columns[c] == column) return static_cast<int>(c);
    return -1;
}

}  // namespace

const char* seriesTableName(GlobalSeries series) {
    switch (series) {
        case GlobalSeries::TrainLoss:
            return "train_loss";
        case GlobalSeries::TrainAccuracy:
            return "train_accuracy";
        case GlobalSeries::TestLoss:
            return "test_loss";
        case GlobalSeries::TestAccuracy:
            return "test_accuracy";
        case GlobalSeries::SamplesPerSecond:
            return "samples_per_second";
        case GlobalSeries::StepsPerSecond:
            return "steps_per_second";
        case GlobalSeries::StepMs:
            return "step_ms";
        case GlobalSeries::ComputeMs:
            return "compute_ms";
        case GlobalSeries::CommunicationMs:
            return "communication_ms";
        case GlobalSeries::WaitingMs:
            return "waiting_ms";
        case GlobalSeries::OptimizerMs:
            return "optimizer_ms";
        case GlobalSeries::IdleMs:
            return "idle_ms";
        case GlobalSeries::LearningRate:
            return "learning_rate";
        case GlobalSeries::Divergence:
            return "divergence";
        case GlobalSeries::Count:
            break;
    }
    return "unknown";
}

RunRecord recordOf(const SavedHistory& history) {
    RunRecord record;
    for (std::size_t s = 0; s < history.series.size() && s < static_cast<std::size_t>(GlobalSeries::Count); ++s) {
        const std::vector<SeriesPoint>& points = history.series[s];
        if (points.empty()) continue;
        RecordTable& table = record.tables[seriesTableName(static_cast<GlobalSeries>(s))];
        table.columns.assign(kPointColumns.begin(), kPointColumns.end());
        table.values.reserve(points.size() * kPointColumns.size());
        for (const SeriesPoint& point : points)
            table.values.insert(table.values.end(),
                                {point.step, point.wallSeconds, point.low, point.high, point.mean, static_cast<double>(point.samples)});
    }
    RecordTable& metrics = record.tables[kMetricsTable];
    for (const MetricColumn& column : metricColumns()) metrics.columns.emplace_back(column.name);
    metrics.values.reserve(history.rows.size() * metrics.columns.size());
    for (const MetricRow& row : history.rows)
        for (const MetricColumn& column : metricColumns()) metrics.values.push_back(column.get(row));
    record.facts["steps"] = std::to_string(history.steps);
    record.facts["samples_per_second"] = number(history.samplesPerSecond);
    record.facts["regression"] = flag(history.regression);
    record.facts["has_test"] = flag(history.hasTest);
    record.facts["parameter_server"] = flag(history.parameterServer);
    return record;
}

Result<SavedHistory> historyOf(const RunRecord& record, const std::string& fileName) {
    SavedHistory history;
    history.series.resize(static_cast<std::size_t>(GlobalSeries::Count));
    for (std::size_t s = 0; s < history.series.size(); ++s) {
        const auto found = record.tables.find(seriesTableName(static_cast<GlobalSeries>(s)));
        if (found == record.tables.end()) continue;
        const RecordTable& table = found->second;
        if (!std::equal(table.columns.begin(), table.columns.end(), kPointColumns.begin(), kPointColumns.end()))
            return Error{fileName + ": history/" + found->first + ": columns must be step,wall_seconds,low,high,mean,samples"};
        std::vector<SeriesPoint>& points = history.series[s];
        points.reserve(table.rows());
        for (std::size_t r = 0; r < table.rows(); ++r) {
            SeriesPoint point{table.at(r, 0),
                              table.at(r, 1),
                              static_cast<float>(table.at(r, 2)),
                              static_cast<float>(table.at(r, 3)),
                              static_cast<float>(table.at(r, 4)),
                              static_cast<std::int64_t>(table.at(r, 5))};
            if (!std::isfinite(point.step) || !std::isfinite(point.wallSeconds) || point.samples < 1 ||
                (!points.empty() && point.step < points.back().step))
                return Error{fileName + ": history/" + found->first + ": row " + std::to_string(r) +
                             " is not a point after the one before (step, wall time, at least one sample)"};
            points.push_back(point);
        }
    }
    if (const auto found = record.tables.find(kMetricsTable); found != record.tables.end()) {
        const RecordTable& table = found->second;
        std::vector<int> index;
        for (const MetricColumn& column : metricColumns()) index.push_back(columnIndex(table, column.name));
        history.rows.reserve(table.rows());
        for (std::size_t r = 0; r < table.rows(); ++r) {
            MetricRow row;
            const auto columns = metricColumns();
            for (std::size_t c = 0; c < columns.size(); ++c) {
                if (index[c] < 0) continue;
                const double value = table.at(r, static_cast<std::size_t>(index[c]));
                if (columns[c].integer && !(std::isfinite(value) && std::abs(value) < 9e15))
                    return Error{fileName + ": history/metrics: row " + std::to_string(r) + ": " + columns[c].name + " is not an integer"};
                columns[c].set(row, value);
            }
            if (!history.rows.empty() && row.step < history.rows.back().step)
                return Error{fileName + ": history/metrics: row " + std::to_string(r) + " has step " + std::to_string(row.step) +
                             ", before the row above"};
            history.rows.push_back(row);
        }
    }
    history.steps = static_cast<std::int64_t>(numberFact(record, "steps", history.rows.empty() ? 0.0 : double(history.rows.back().step)));
    history.samplesPerSecond = numberFact(record, "samples_per_second", 0.0);
    history.regression = flagFact(record, "regression");
    history.hasTest = flagFact(record, "has_test");
    history.parameterServer = flagFact(record, "parameter_server");
    return history;
}

}  // namespace distlab::ui
