// distlab-cli bench: steady-state throughput of a config, after untimed warm-up steps.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_options.hpp"
#include "commands.hpp"
#include "distlab/comm/spin_barrier.hpp"
#include "distlab/core/rng.hpp"
#include "distlab/device/device_info.hpp"
#include "distlab/device/fma_probe.hpp"
#include "distlab/distribute/parameter_server_controls.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/config/run_config_json.hpp"
#include "distlab/telemetry/phase_split.hpp"
#include "pipeline_summary.hpp"
#include "run_setup.hpp"

namespace distlab::cli {

namespace {

struct BenchOptions {
    std::string configPath;
    double seconds = 5.0;
    long long warmupSteps = 10;
    std::vector<std::string> overrides;
    int fmaProbeThreads = 0;  // 0: no FMA bursts between the steps
};

// A day: longer measurements say nothing more, and the budget in nanoseconds must not overflow.
constexpr double kMaxBenchSeconds = 86400.0;
// More threads than any machine here has cores: the bursts would measure the scheduler.
constexpr int kMaxFmaProbeThreads = 1024;
constexpr std::size_t kKeptSteps = std::size_t{1} << 20;  // 8 MiB of step times at most

int runBench(const BenchOptions& options) {
    auto config = loadRunConfig(options.configPath, options.overrides, "CONFIG");
    if (!config) return inputError(config.error().message);
    auto created = Trainer::create(*config);
    if (!created) return inputError(options.configPath + ": " + created.error().message);
    Trainer& trainer = **created;

    if (options.fmaProbeThreads > 0) {
        // The bursts run on the calling thread's team, beside a lone replica's steps. Other
        // replicas' threads spin for a while after each step (distlab/comm/spin_barrier.hpp) and
        // would take the bursts' cores: a ceiling measured so would be too low.
        if (trainer.replicaCount() != 1 || trainer.parameterServerControls() != nullptr)
            return inputError(options.configPath + ": --fma-probe measures beside one replica's steps; this config runs " +
                              std::to_string(trainer.replicaCount()) + " replicas" +
                              (trainer.parameterServerControls() != nullptr ? " with parameter servers" : ""));
        if (!fmaBurstAvailable()) {
            std::fprintf(stderr, "error: bench: --fma-probe needs a CPU with AVX-512, or AVX2 and FMA\n");
            return 1;
        }
    }
    for (long long i = 0; i < options.warmupSteps; ++i) trainer.step();
    // Step times for the percentiles: every step up to kKeptSteps, then a uniform sample of them
    // (reservoir sampling), so memory stays bounded however long the measurement runs.
    std::vector<double> stepMs;
    stepMs.reserve(kKeptSteps);
    Rng reservoir(1);
    std::int64_t measuredSteps = 0;
    std::int64_t measuredSamples = 0;  // whose gradients reached an update (StepReport::samples)
    double commNs = 0;
    double serverBusyNs = 0;
    double stalenessSum = 0;
    BubbleMeter bubbles;
    StepReport lastReport;
    double stepMsSum = 0;
    const std::int64_t start = nowNs();
    const auto budget = static_cast<std::int64_t>(options.seconds * 1e9);
    std::int64_t now = start;
    // The FMA bursts beside the steps (--fma-probe): their FLOPs and time, and the wall time they
    // took, which the throughput leaves out.
    double probeFlops = 0, probeSeconds = 0, probeBest = 0;
    std::int64_t probeWallNs = 0, bursts = 0;
    while (now - start < budget) {
        const StepReport& report = trainer.step();
        now = nowNs();
        if (options.fmaProbeThreads > 0) {
            const FmaBurst burst = fmaBurst(options.fmaProbeThreads);
            probeFlops += burst.flops;
            probeSeconds += burst.seconds;
            probeBest = std::max(probeBest, burst.flops / burst.seconds / 1e9);
            ++bursts;
            const std::int64_t after = nowNs();
            probeWallNs += after - now;
            now = after;
        }
        if (!report.applied) continue;
        measuredSamples += report.samples;
        serverBusyNs += double(report.serverBusyNs);
        stalenessSum += double(report.staleness);
        const double ms = double(report.endNs - report.startNs) * 1e-6;
        stepMsSum += ms;
        if (stepMs.size() < kKeptSteps)
            stepMs.push_back(ms);
        else if (const auto slot = reservoir.below(static_cast<std::uint64_t>(measuredSteps) + 1); slot < kKeptSteps)
            stepMs[slot] = ms;
        ++measuredSteps;
        if (splitsModel(*config)) {
            bubbles.add(report);
            lastReport = report;
        }
        const PhaseSplit split = splitStep(report);
        commNs += split[Phase::Communication] + split[Phase::Waiting];
    }
    // On the virtual clock a step lasts what its placed passes span (the devices with a core each).
    const double elapsed = config->clock == ClockMode::Virtual ? stepMsSum * 1e-3 : double(now - start - probeWallNs) * 1e-9;
    if (stepMs.empty()) {
        std::fprintf(stderr, "error: bench: no step finished in %g s; give a longer --seconds\n", options.seconds);
        return 1;
    }
    const auto steps = static_cast<double>(measuredSteps);
    auto percentile = [&](double p) {
        std::vector<double> sorted = stepMs;
        const auto index = static_cast<std::size_t>(p * (sorted.size() - 1));
        std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(index), sorted.end());
        return sorted[index];
    };
    const double samplesPerSec = double(measuredSamples) / elapsed;
    nlohmann::ordered_json out;
    out["name"] = config->name;
    out["samples_per_sec"] = samplesPerSec;
    out["steps_per_sec"] = steps / elapsed;
    out["step_ms_p50"] = percentile(0.5);
    out["step_ms_p95"] = percentile(0.95);
    out["comm_ms_per_step"] = commNs * 1e-6 / steps;
    out["gflops"] = 6.0 * double(trainer.replicaModel(0).weightCount()) * samplesPerSec / 1e9;
    out["matrix_product"] = cpuMatrixProduct();
    out["openblas_kernels"] = cpuOpenBlasKernels();
    out["replicas"] = trainer.replicaCount();
    out["global_batch_size"] = config->data.globalBatchSize;
    out["steps"] = measuredSteps;
    out["seconds"] = elapsed;
    if (ParameterServerControls* controls = trainer.parameterServerControls()) {
        // How much of the servers' time applying updates took: they must not be the bottleneck.
        out["server_busy_share"] = serverBusyNs / (elapsed * 1e9 * controls->serverCount());
        out["mean_staleness"] = stalenessSum / steps;
        out["workers"] = controls->workerCount();
    }
    if (splitsModel(*config)) addPipelineFigures(out, trainer, bubbles, lastReport);
    if (options.fmaProbeThreads > 0)
        out["fma_probe"] = {{"threads", options.fmaProbeThreads},
                            {"bursts", bursts},
                            {"gflops", probeFlops / probeSeconds / 1e9},
                            {"best_gflops", probeBest}};
    out["final_loss"] = trainer.step().loss;
    std::puts(out.dump().c_str());
    return 0;
}

}  // namespace

void addBenchCommand(CLI::App& app, int& exitCode) {
    auto options = std::make_shared<BenchOptions>();
    CLI::App* command =
        app.add_subcommand("bench", "Measure a config's steady-state throughput after untimed warm-up steps; prints one JSON line.");
    command->add_option("CONFIG", options->configPath, "run config (JSON)")->required();
    command->add_option("--seconds", options->seconds, "how long to measure (default 5)")
        ->type_name("S")
        ->check(positiveUpTo(kMaxBenchSeconds));
    command->add_option("--warmup-steps", options->warmupSteps, "untimed steps first (default 10)")
        ->type_name("K")
        ->check(integerIn(0, kMaxSteps));
    command->add_option("--set", options->overrides, "override a config value (repeatable)")
        ->type_name("KEY.PATH=VALUE")
        ->allow_extra_args(false);
    command
        ->add_option("--fma-probe", options->fmaProbeThreads,
                     "after each step, a 0.1-ms FMA burst on N threads of the step's team: the cores' FMA rate "
                     "in the same moments (fma_probe in the output; left out of the throughput)")
        ->type_name("N")
        ->check(integerIn(1, kMaxFmaProbeThreads));
    command->callback([options, &exitCode] { exitCode = runBench(*options); });
}

}  // namespace distlab::cli
