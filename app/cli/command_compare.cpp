// distlab-cli compare: runs a study's variants headless (docs/interfaces.md §13) and prints the
// summary table; writes the table as CSV and every update of every variant as JSON Lines.
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "distlab/data/dataset.hpp"
#include "distlab/files/atomic_file.hpp"
#include "distlab/files/staged_file.hpp"
#include "distlab/study/study_runner.hpp"
#include "distlab/study/study_table.hpp"
#include "interrupts.hpp"
#include "run_setup.hpp"
#include "train_files.hpp"

namespace distlab::cli {
namespace {

struct CompareOptions {
    std::string studyPath;
    std::string csvPath;
    std::string jsonlPath;
    bool quiet = false;
    bool predict = false;
};

/// One JSON line per update of a variant: its label, then the metrics' figures (docs/interfaces.md §7),
/// the times from the one phase split.
std::string metricsLine(const std::string& label, const StepReport& report, const std::optional<EvalResult>& test) {
    const PhaseSplit split = splitStep(report);
    const double stepMs = double(stepDurationNs(report)) * 1e-6;
    nlohmann::ordered_json line;
    line["variant"] = label;
    line["step"] = report.step;
    line["loss"] = report.loss;
    if (report.accuracy >= 0) line["train_accuracy"] = report.accuracy;
    line["step_ms"] = stepMs;
    line["samples_per_sec"] = stepMs > 0 ? double(report.samples) * 1e3 / stepMs : 0.0;
    line["compute_ms"] = split[Phase::Compute] * 1e-6;
    line["optimizer_ms"] = split[Phase::Optimizer] * 1e-6;
    line["comm_ms"] = split[Phase::Communication] * 1e-6;
    line["wait_ms"] = waitingAndIdleNs(split) * 1e-6;
    line["bytes_communicated"] = stepBytesCommunicated(report);
    if (report.bytesFromRingFormula) line["bytes_from"] = "ring_formula";  // a GPU run's: not counted
    if (test) {
        line["test_loss"] = test->loss;
        if (test->accuracy >= 0) line["test_accuracy"] = test->accuracy;
    }
    // nlohmann writes NaN as null, as the metrics file does.
    return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

/// Progress lines on stderr, the metrics lines, and Ctrl-C turned into cancelling every variant.
class CompareObserver : public StudyObserver {
public:
    CompareObserver(StudyRunner& runner, StagedFile* metrics, bool quiet) : m_runner(runner), m_metrics(metrics), m_quiet(quiet) {}

    void onVariantState(int variant, VariantState state, const std::string& message) override {
        if (interrupted()) m_runner.cancelAll();
        if (m_quiet || state == VariantState::Waiting) return;
        const StudyVariant& v = m_runner.study().variants[static_cast<std::size_t>(variant)];
        const std::lock_guard lock(m_mutex);
        std::fprintf(stderr, "[%d/%d] %s: %s", variant + 1, m_runner.variantCount(), v.label.c_str(), variantStateName(state));
        if (state == VariantState::Running) std::fprintf(stderr, " (%lld steps)", static_cast<long long>(v.config.steps));
        if (!message.empty()) std::fprintf(stderr, ": %s", message.c_str());
        std::fputc('\n', stderr);
    }

    void onPredicted(int variant) override {
        if (m_quiet) return;
        const std::string& label = m_runner.study().variants[static_cast<std::size_t>(variant)].label;
        if (const auto predicted = m_runner.prediction(variant))
            std::fprintf(stderr, "predicted %s: %.4g ms a step\n", label.c_str(), predicted->stepMs);
        else
            std::fprintf(stderr, "predicted %s: nothing (%s)\n", label.c_str(), m_runner.predictionNote(variant).c_str());
    }

    void onStep(int variant, const StepReport& report, const std::optional<EvalResult>& test) override {
        if (interrupted()) m_runner.cancelAll();
        if (m_metrics == nullptr) return;
        const StudyVariant& v = m_runner.study().variants[static_cast<std::size_t>(variant)];
        const std::string line = metricsLine(v.label, report, test);
        const std::lock_guard lock(m_mutex);  // simultaneous variants call from their own threads
        m_metrics->append(line);
    }

private:
    StudyRunner& m_runner;
    StagedFile* m_metrics;
    bool m_quiet;
    std::mutex m_mutex;
};

/// The table for a terminal: columns aligned, "-" for an unknown value.
void printTable(const Study& study, const StudyTable& table) {
    std::printf("# study %s: %zu variants, %s, baseline %s\n", study.spec.name.c_str(), study.variants.size(),
                studyModeName(study.spec.mode), study.variants[static_cast<std::size_t>(study.baseline())].label.c_str());
    if (study.spec.mode == StudyMode::Simultaneous)
        std::printf("# the variants ran at once and shared the cores: their speeds distort each other\n");
    for (const StudyVariant& variant : study.variants)
        if (!variant.sameSeedAndDataAsBaseline)
            std::printf("# %s trains on other data or another seed than the baseline\n", variant.label.c_str());
    std::vector<std::size_t> widths(table.header.size());
    auto shown = [](const std::string& cell) { return cell.empty() ? std::string("-") : cell; };
    for (std::size_t c = 0; c < widths.size(); ++c) {
        widths[c] = table.header[c].size();
        for (const auto& row : table.rows) widths[c] = std::max(widths[c], shown(row[c]).size());
    }
    auto print = [&](const std::vector<std::string>& cells) {
        std::string line;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string cell = shown(cells[c]);
            // The label left-aligned, numbers right-aligned.
            const std::string pad(widths[c] - cell.size(), ' ');
            line += (c ? "  " : "") + (c < 2 ? cell + pad : pad + cell);
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        std::puts(line.c_str());
    };
    print(table.header);
    for (const auto& row : table.rows) print(row);
}

Status checkFiles(const CompareOptions& options, const Study& study) {
    std::vector<InputName> inputs{{"STUDY", options.studyPath, {}}};
    for (const StudyVariant& variant : study.variants)
        for (InputName& file : dataFiles(variant.config.data, variant.config.baseDirectory)) inputs.push_back(std::move(file));
    return checkTrainFiles(inputs, {{"--csv", options.csvPath}, {"--jsonl", options.jsonlPath}});
}

int runCompare(const CompareOptions& options) {
    auto study = loadStudy(options.studyPath, "STUDY");
    if (!study) return inputError(study.error().message);
    if (Status files = checkFiles(options, *study); !files) return inputError(files.error().message);
    std::optional<StagedFile> metrics;
    if (!options.jsonlPath.empty()) {
        auto staged = StagedFile::create(options.jsonlPath);
        if (!staged) return inputError(staged.error().message);
        metrics.emplace(std::move(*staged));
    }
    catchInterrupts();
    StudyRunner runner(std::move(*study));
    runner.setPredictStepTimes(options.predict);
    CompareObserver observer(runner, metrics ? &*metrics : nullptr, options.quiet);
    const std::vector<StudyRow> rows = runner.run(&observer);
    const StudyTable table = makeStudyTable(rows, runner.study().baseline(),
                                            options.predict ? runner.predictions() : std::vector<std::optional<StepTimePrediction>>{});
    printTable(runner.study(), table);

    int exitCode = 0;
    for (const StudyRow& row : rows) {
        if (row.state != VariantState::Failed) continue;
        std::fprintf(stderr, "error: variant \"%s\": %s\n", row.label.c_str(), row.message.c_str());
        if (exitCode == 0) exitCode = row.buildFailed ? 2 : 3;
    }
    std::string failure;
    if (metrics)
        if (Status closed = metrics->close(); !closed) failure = closed.error().message;
    if (!options.csvPath.empty())
        if (Status written = writeFileAtomically(options.csvPath, studyTableCsv(table)); !written && failure.empty())
            failure = written.error().message;
    if (!failure.empty()) {
        std::fprintf(stderr, "error: %s\n", failure.c_str());
        if (exitCode == 0) exitCode = 1;
    }
    if (interrupted() && exitCode == 0) return 130;
    return exitCode;
}

}  // namespace

void addCompareCommand(CLI::App& app, int& exitCode) {
    auto options = std::make_shared<CompareOptions>();
    CLI::App* command =
        app.add_subcommand("compare", "Run a study's variants (a *.study.json file) and print their summary table side by side.");
    command->add_option("STUDY", options->studyPath, "study file (JSON)")->required();
    command->add_option("--csv", options->csvPath, "write the summary table here as CSV")->type_name("T.csv");
    command->add_option("--jsonl", options->jsonlPath, "write one JSON line per update of every variant here")->type_name("M.jsonl");
    command->add_flag("--predict", options->predict,
                      "predict each variant's step time first (a short calibration) and add the prediction and its error to the table");
    command->add_flag("--quiet", options->quiet, "no progress output");
    command->callback([options, &exitCode] { exitCode = runCompare(*options); });
}

}  // namespace distlab::cli
