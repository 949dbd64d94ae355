#include "distlab/study/study_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace distlab {

namespace {

// Four significant digits tell variants apart without a wall of digits; the CSV holds the same text.
std::string number(double value, const char* format = "%.4g") {
    if (!std::isfinite(value)) return {};
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

std::string share(double value) { return number(value, "%.3f"); }

}  // namespace

std::string csvCell(const std::string& cell) {
    if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
    std::string quoted = "\"";
    for (char c : cell) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

StudyTable makeStudyTable(std::span<const StudyRow> rows, int baseline, std::span<const std::optional<StepTimePrediction>> predictions) {
    StudyTable table;
    table.header = {"variant",           "state",          "steps",           "seconds",           "final_loss",
                    "test_loss",         "accuracy",       "steps_to_target", "seconds_to_target", "samples_per_sec",
                    "speed_vs_baseline", "bytes_per_step", "peak_memory_mib", "compute_share",     "comm_share",
                    "wait_share",        "optimizer_share"};
    const bool hasBaseline = baseline >= 0 && baseline < static_cast<int>(rows.size());
    const double baseSpeed = hasBaseline ? rows[static_cast<std::size_t>(baseline)].samplesPerSecond : 0.0;
    for (const StudyRow& row : rows) {
        const bool split = row.phaseTotalsNs.total() > 0.0;
        table.rows.push_back({
            row.label,
            variantStateName(row.state),
            std::to_string(row.steps),
            number(row.trainingSeconds, "%.3f"),
            number(row.finalLoss),
            row.testLoss ? number(*row.testLoss) : std::string(),
            number(row.accuracy),
            row.stepsToTarget ? std::to_string(*row.stepsToTarget) : std::string(),
            row.secondsToTarget ? number(*row.secondsToTarget, "%.3f") : std::string(),
            row.steps > 0 ? number(row.samplesPerSecond) : std::string(),
            baseSpeed > 0 && row.steps > 0 ? number(row.samplesPerSecond / baseSpeed, "%.3f") : std::string(),
            row.steps > 0 ? number(row.bytesPerStep) : std::string(),
            row.peakMemoryBytes ? number(double(*row.peakMemoryBytes) / (1024.0 * 1024.0), "%.3f") : std::string(),
            split ? share(row.shares.compute) : std::string(),
            split ? share(row.shares.communication) : std::string(),
            split ? share(row.shares.waiting) : std::string(),
            split ? share(row.shares.optimizer) : std::string(),
        });
    }
    // Split models' bubbles, where any variant is one: measured (the devices' mean) and the closed form.
    if (std::any_of(rows.begin(), rows.end(), [](const StudyRow& row) { return row.bubble.has_value(); })) {
        table.header.insert(table.header.end(), {"bubble", "bubble_theory"});
        for (std::size_t r = 0; r < rows.size(); ++r)
            table.rows[r].insert(table.rows[r].end(), {rows[r].bubble ? share(*rows[r].bubble) : std::string(),
                                                       rows[r].bubbleTheory ? share(*rows[r].bubbleTheory) : std::string()});
    }
    if (predictions.empty()) return table;
    // The prediction right beside its measurement, near the left where the eye starts (not after
    // sixteen other columns): after `seconds`, of which the measured step is `seconds` / `steps`.
    constexpr std::ptrdiff_t kAfterSeconds = 4;
    const std::vector<std::string> predictedHeader{"step_ms", "predicted_step_ms", "prediction_error"};
    table.header.insert(table.header.begin() + kAfterSeconds, predictedHeader.begin(), predictedHeader.end());
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const StudyRow& row = rows[r];
        const double measuredMs = row.steps > 0 ? row.trainingSeconds * 1e3 / double(row.steps) : 0.0;
        const std::optional<StepTimePrediction> predicted = r < predictions.size() ? predictions[r] : std::nullopt;
        const std::vector<std::string> cells{
            row.steps > 0 ? number(measuredMs) : std::string(),
            predicted ? number(predicted->stepMs) : std::string(),
            predicted && measuredMs > 0 ? number(predicted->stepMs / measuredMs - 1.0, "%+.3f") : std::string(),
        };
        table.rows[r].insert(table.rows[r].begin() + kAfterSeconds, cells.begin(), cells.end());
    }
    return table;
}

std::string studyTableCsv(const StudyTable& table) {
    std::string out;
    auto line = [&](const std::vector<std::string>& cells) {
        for (std::size_t i = 0; i < cells.size(); ++i) {
            if (i > 0) out += ',';
            out += csvCell(cells[i]);
        }
        out += '\n';
    };
    line(table.header);
    for (const auto& row : table.rows) line(row);
    return out;
}

}  // namespace distlab
