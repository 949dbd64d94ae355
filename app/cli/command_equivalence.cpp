// distlab-cli equivalence: the equivalence lab headless (docs/interfaces.md §13.7). Steps a study's
// variants in lockstep, prints each variant's class (must equal / may differ, and why), its largest
// weight difference from the baseline after the last update and at its worst, and writes every
// update's differences as CSV.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "commands.hpp"
#include "distlab/data/dataset.hpp"
#include "distlab/files/atomic_file.hpp"
#include "distlab/study/equivalence.hpp"
#include "interrupts.hpp"
#include "run_setup.hpp"
#include "train_files.hpp"

namespace distlab::cli {
namespace {

/// Every update is kept for the CSV up to this many, then the history thins (ThinnedSeries):
/// about 48 MiB per variant at most.
constexpr std::int64_t kMaxKeptUpdates = std::int64_t{1} << 20;

struct EquivalenceOptions {
    std::string studyPath;
    std::string csvPath;
    bool quiet = false;
};

std::string where(const EquivalenceRun& run, const EquivalencePoint& point) {
    return run.parameterName(point.parameter) + "[" + std::to_string(point.element) + "]";
}

void printVariant(const EquivalenceRun& run, int v) {
    const StudyVariant& variant = run.study().variants[static_cast<std::size_t>(v)];
    const EquivalenceVerdict& verdict = run.verdict(v);
    const EquivalenceProgress progress = run.progress(v);
    std::printf("%s: %s: %s\n", variant.label.c_str(), equivalenceClassName(verdict.kind), verdict.reason.c_str());
    std::printf("  sums: %s\n", verdict.summationOrder.c_str());
    if (progress.state != VariantState::Finished)
        std::printf("  %s after %lld updates%s%s\n", variantStateName(progress.state), static_cast<long long>(progress.stepsDone),
                    progress.message.empty() ? "" : ": ", progress.message.c_str());
    else if (!progress.message.empty())
        std::printf("  %s\n", progress.message.c_str());
    if (!progress.compared) return;
    const EquivalencePoint& last = progress.latest;
    const EquivalencePoint& worst = progress.worst;
    std::printf("  after update %lld: largest relative difference %.3g at %s, largest absolute %.3g, loss difference %.3g\n",
                static_cast<long long>(last.step), last.maxRelative, where(run, last).c_str(), last.maxAbsolute, last.lossDifference);
    std::printf("  worst: %.3g relative at update %lld (%s)\n", worst.maxRelative, static_cast<long long>(worst.step),
                where(run, worst).c_str());
    if (verdict.kind == EquivalenceClass::MustEqual) std::printf("  why not zero: %s\n", verdict.explanation.c_str());
}

int runEquivalence(const EquivalenceOptions& options) {
    auto study = loadStudy(options.studyPath, "STUDY");
    if (!study) return inputError(study.error().message);
    std::vector<InputName> inputs{{"STUDY", options.studyPath, {}}};
    for (const StudyVariant& variant : study->variants)
        for (InputName& file : dataFiles(variant.config.data, variant.config.baseDirectory)) inputs.push_back(std::move(file));
    if (Status files = checkTrainFiles(inputs, {{"--csv", options.csvPath}}); !files) return inputError(files.error().message);

    const std::int64_t steps = study->variants[static_cast<std::size_t>(study->baseline())].config.steps;
    EquivalenceRun run(std::move(*study), static_cast<std::size_t>(std::clamp<std::int64_t>(steps, 2048, kMaxKeptUpdates)));
    catchInterrupts();
    if (!options.quiet)
        std::fprintf(stderr, "stepping %d variants in lockstep for %lld updates\n", run.variantCount(), static_cast<long long>(steps));
    // The lockstep runs on its own thread so that this one can turn Ctrl-C into cancel().
    std::atomic<bool> finished{false};
    std::thread stepper([&run, &finished] {
        run.run();
        finished = true;
    });
    while (!finished) {
        if (interrupted()) run.cancel();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    stepper.join();

    const Study& done = run.study();
    std::printf("# equivalence study %s: %d variants in lockstep, baseline %s\n", done.spec.name.c_str(), run.variantCount(),
                done.variants[static_cast<std::size_t>(done.baseline())].label.c_str());
    int exitCode = 0;
    for (int v = 0; v < run.variantCount(); ++v) {
        printVariant(run, v);
        const EquivalenceProgress progress = run.progress(v);
        if (progress.state != VariantState::Failed) continue;
        std::fprintf(stderr, "error: variant \"%s\": %s\n", done.variants[static_cast<std::size_t>(v)].label.c_str(),
                     progress.message.c_str());
        // A variant that never stepped could not be built (its data, its devices): an input error.
        if (exitCode == 0) exitCode = progress.stepsDone == 0 ? 2 : 3;
    }
    if (!options.csvPath.empty())
        if (Status written = writeFileAtomically(options.csvPath, equivalenceCsv(run)); !written) {
            std::fprintf(stderr, "error: %s\n", written.error().message.c_str());
            if (exitCode == 0) exitCode = 1;
        }
    if (interrupted() && exitCode == 0) return 130;
    return exitCode;
}

}  // namespace

void addEquivalenceCommand(CLI::App& app, int& exitCode) {
    auto options = std::make_shared<EquivalenceOptions>();
    CLI::App* command =
        app.add_subcommand("equivalence",
                           "Step a study's variants in lockstep and show how far each one's weights drift from the baseline's: "
                           "must-equal variants by float rounding only, others (async parameter servers) by far more.");
    command->add_option("STUDY", options->studyPath, "study file (JSON)")->required();
    command->add_option("--csv", options->csvPath, "write every update's differences here as CSV")->type_name("OUT.csv");
    command->add_flag("--quiet", options->quiet, "no progress output");
    command->callback([options, &exitCode] { exitCode = runEquivalence(*options); });
}

}  // namespace distlab::cli
