// distlab-cli train: runs a config to its step count (steps 0: until interrupted), writing the
// files that were asked for, and prints one JSON summary line on stdout.
#include <cmath>
#include <functional>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline_summary.hpp"

#include "cli_options.hpp"
#include "commands.hpp"
#include "distlab/comm/spin_barrier.hpp"
#include "distlab/data/dataset.hpp"
#include "distlab/device/gpu_plan.hpp"
#include "distlab/distribute/parameter_server_controls.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/formats/checkpoint.hpp"
#include "distlab/config/run_config_json.hpp"
#include "progress_reporter.hpp"
#include "interrupts.hpp"
#include "run_setup.hpp"
#include "step_recorder.hpp"
#include "task_telemetry_stream.hpp"
#include "distlab/session/training_session.hpp"
#include "train_files.hpp"
#include "cluster_join.hpp"
#include "parameter_server_task.hpp"
#include "distlab/distribute/cluster_task.hpp"

namespace distlab::cli {
namespace {

/// A fault to inject at a given update: "kill-worker:W@STEP", "kill-ps:P@STEP", "slow-worker:W=S@STEP",
/// "pause-worker:W@STEP", "resume-worker:W@STEP" (parameter-server runs), "fail-device:R@STEP" (the
/// synchronous strategies: replica R's device is lost in the step after update STEP).
constexpr long long kMaxFaultTarget = 1 << 20;  // far past any worker or server count; fits an int

struct Fault {
    std::string kind;
    int target = 0;
    double value = 1.0;
    std::int64_t atStep = 0;
};

constexpr const char* kFaultForms =
    "expected kill-worker:W@STEP, kill-ps:P@STEP, slow-worker:W=SPEED@STEP, pause-worker:W@STEP, resume-worker:W@STEP "
    "or fail-device:R@STEP";

Result<Fault> parseFault(std::string_view text) {
    Fault fault;
    const auto colon = text.find(':'), at = text.find('@');
    if (colon == std::string_view::npos || at == std::string_view::npos || at < colon) return Error{kFaultForms};
    fault.kind = std::string(text.substr(0, colon));
    std::string_view target = text.substr(colon + 1, at - colon - 1);
    if (const auto equals = target.find('='); equals != std::string_view::npos) {
        const auto value = parsePositive(target.substr(equals + 1));
        if (!value) return Error{kFaultForms};
        fault.value = *value;
        target = target.substr(0, equals);
    }
    const auto index = parseCount(target), step = parseCount(text.substr(at + 1));
    if (!index || !step || *index > kMaxFaultTarget) return Error{kFaultForms};
    fault.target = static_cast<int>(*index);
    fault.atStep = *step;
    // The same range as strategy.worker_speed: a worker cannot run faster than full speed.
    if (fault.kind == "slow-worker" && !(fault.value >= 0.1 && fault.value <= 1.0))
        return Error{"slow-worker SPEED must be in [0.1, 1.0] (1 = full speed, 0.5 = twice as slow)"};
    for (const char* known : {"kill-worker", "kill-ps", "slow-worker", "pause-worker", "resume-worker", "fail-device"})
        if (fault.kind == known) return fault;
    return Error{kFaultForms};
}

bool isDeviceFault(const Fault& fault) { return fault.kind == "fail-device"; }

/// Why `fault` cannot apply to this run, or "" when it can.
std::string faultRefusal(const Fault& fault, Trainer& trainer, const RunConfig& config) {
    const std::string name = "--fault " + fault.kind + ":" + std::to_string(fault.target);
    if (isDeviceFault(fault)) {
        if (config.strategy.type == StrategyKind::ParameterServer)
            return name + ": parameter-server runs lose workers with kill-worker, not fail-device";
        if (fault.target >= trainer.replicaCount())
            return name + ": there is no such replica (the run has " + std::to_string(trainer.replicaCount()) + ")";
        return {};
    }
    const ParameterServerControls* controls = trainer.parameterServerControls();
    if (controls == nullptr)
        return name + ": needs a parameter_server strategy (strategy.type is " + std::string(configName(config.strategy.type)) + ")";
    if (fault.target >= (fault.kind == "kill-ps" ? controls->serverCount() : controls->workerCount()))
        return name + ": there is no such " + (fault.kind == "kill-ps" ? "parameter server" : "worker");
    return {};
}

void applyFault(const Fault& fault, Trainer& trainer) {
    if (isDeviceFault(fault)) {
        trainer.failDevice(fault.target);
        return;
    }
    ParameterServerControls& controls = *trainer.parameterServerControls();
    if (fault.kind == "kill-worker")
        controls.killWorker(fault.target);
    else if (fault.kind == "kill-ps")
        controls.killParameterServer(fault.target);
    else if (fault.kind == "slow-worker")
        controls.setWorkerSpeed(fault.target, fault.value);
    else if (fault.kind == "pause-worker")
        controls.setWorkerPaused(fault.target, true);
    else if (fault.kind == "resume-worker")
        controls.setWorkerPaused(fault.target, false);
}

struct TrainOptions {
    bool worker = false;  ///< distlab-worker: one task of a multi-worker run (cluster_join.hpp)
    std::string task, redis;
    std::string telemetry;  ///< distlab-worker --telemetry: the app's address (task_telemetry_stream.hpp)
    std::string configPath;
    std::optional<long long> steps;
    std::string initWeights, saveWeights, checkpoint, resume, metrics, trace;
    long long checkpointEvery = 0;
    std::vector<std::string> overrides;
    std::vector<Fault> faults;
    bool quiet = false;
    bool haltOnNonFinite = true;
};

std::string jsonNumber(double value) { return std::isfinite(value) ? nlohmann::json(value).dump() : "null"; }

// Every file the run reads and writes, checked before the data is loaded (train_files.hpp).
Status checkFiles(const TrainOptions& options, const RunConfig& config) {
    std::vector<InputName> inputs{{"CONFIG", options.configPath, {}}};
    for (InputName& file : dataFiles(config.data, config.baseDirectory)) inputs.push_back(std::move(file));
    if (!options.initWeights.empty()) inputs.push_back({"--init-weights", options.initWeights, {}});
    if (!options.resume.empty()) inputs.push_back({"--resume", options.resume, {}});
    return checkTrainFiles(inputs, {{"--metrics", options.metrics},
                                    {"--trace", options.trace},
                                    {"--save-weights", options.saveWeights},
                                    {"--checkpoint", options.checkpoint}});
}

int runTrain(TrainOptions options) {
    auto config = loadRunConfig(options.configPath, options.overrides, "CONFIG");
    if (!config) return inputError(config.error().message);
    if (options.steps) config->steps = *options.steps;
    // A task of a multi-worker run joins the others first (every task must, before any trains);
    // only the coordinator writes the run's weights and checkpoints.
    std::unique_ptr<ClusterTask> member;
    if (options.worker) {
        auto joined = joinCluster(*config, options.configPath, options.task, options.redis);
        if (!joined) return inputError(joined.error().message);
        member = std::move(*joined);
        if (servesParameterServerRun(*config, *member)) return runParameterServerTask(*config, *member, options.configPath);
        if (!member->coordinator()) {
            options.saveWeights.clear();
            options.checkpoint.clear();
        }
    }
    if (Status files = checkFiles(options, *config); !files) return inputError(files.error().message);

    auto created = Trainer::create(*config, member ? member->takeWorkers() : nullptr);
    if (!created) return inputError(options.configPath + ": " + created.error().message);
    Trainer& trainer = **created;
    // Until tests/gpu have passed on a GPU, a run on gpu:K says so (one line, not per step).
    if (const std::string warning = gpuTrainingWarning(*config); !warning.empty()) std::fprintf(stderr, "%s\n", warning.c_str());
    if (!options.initWeights.empty())
        if (auto status = loadWeights(trainer, options.initWeights, "--init-weights"); !status) return inputError(status.error().message);
    if (!options.resume.empty())
        if (auto status = resumeCheckpoint(trainer, options.resume, "--resume"); !status) return inputError(status.error().message);

    std::unique_ptr<TaskTelemetryStream> telemetry;
    if (!options.telemetry.empty()) {
        auto opened = TaskTelemetryStream::open(options.telemetry, *member, trainer);
        if (!opened) return inputError(opened.error().message);
        telemetry = std::move(*opened);
    }

    catchInterrupts();
    const std::int64_t firstStep = trainer.stepsDone();
    std::int64_t samplesRun = 0;  // whose gradients reached an update (StepReport::samples)
    ProgressReporter progress(firstStep, config->steps, options.quiet);
    const std::int64_t startNs = nowNs();
    double lastLoss = std::nan("");
    int exitCode = 0;
    std::string failure;
    for (const Fault& fault : options.faults)
        if (const std::string refusal = faultRefusal(fault, trainer, *config); !refusal.empty()) return inputError(refusal);
    // Opened once every argument has been checked; the files themselves change only when published.
    auto recorder = StepRecorder::open(options.metrics, options.trace, config->name, trainer.replicaCount(),
                                       config->strategy.type == StrategyKind::ParameterServer);
    if (!recorder) {
        std::fprintf(stderr, "error: %s\n", recorder.error().message.c_str());
        return 1;
    }
    // A config's steps of 0 sets no limit: the run goes on until Ctrl-C or SIGTERM. --steps 0 is a
    // count: no update (the initial weights, a checkpoint of them). See docs/interfaces.md §3.2.
    const bool limited = config->steps > 0 || options.steps.has_value();
    BubbleMeter bubbles;
    StepReport lastReport;
    while ((!limited || trainer.stepsDone() < config->steps) && !interrupted()) {
        for (const Fault& fault : options.faults)
            if (fault.atStep == trainer.stepsDone()) applyFault(fault, trainer);
        const StepReport* step = nullptr;
        try {
            step = &trainer.step();
        } catch (const TrainingError& error) {
            failure = member ? member->describeFailure(error.what()) : error.what();
            exitCode = 3;
            break;
        }
        const StepReport& report = *step;
        if (!report.applied) {
            // Faults fire at an update count, which cannot advance now: a later resume-worker never fires.
            failure = "every worker is paused at update " + std::to_string(trainer.stepsDone()) +
                      " and no resume-worker fault is due before the next update: the run cannot progress";
            exitCode = 3;
            break;
        }
        lastLoss = report.loss;
        samplesRun += report.samples;
        if (splitsModel(*config)) {
            bubbles.add(report);
            lastReport = report;  // its lanes' activation peaks (the vector keeps its storage)
        }
        const bool lastStep = limited && trainer.stepsDone() >= config->steps;
        const bool evaluateNow = lastStep || (config->evalEvery > 0 && report.step % config->evalEvery == 0);
        std::optional<EvalResult> test;
        if (evaluateNow && !trainer.data().test.empty()) test = trainer.evaluate(trainer.data().test);
        recorder->record(report, test);
        if (telemetry) {
            // The app draws a test curve as it does for a run of its own: an evaluation every half
            // second (of at most as many examples as its sessions take), beside the ones asked for.
            std::optional<EvalResult> live = test;
            if (!live && !trainer.data().test.empty() && telemetry->evaluationDue(nowNs()))
                live = trainer.evaluate(trainer.data().test, SessionOptions{}.evalMaxExamples);
            telemetry->step(report, live, trainer.clockNs());
            telemetry->maybeSnapshot(trainer, nowNs(), lastStep);
        }
        const double seconds = double(nowNs() - startNs) * 1e-9;
        progress.update(report.step, report.loss, seconds > 0 ? double(samplesRun) / seconds : 0.0);
        if (options.haltOnNonFinite && !std::isfinite(report.loss)) {
            failure = "training diverged: the loss is not finite at step " + std::to_string(report.step) +
                      " (lower optimizer.learning_rate, or pass --keep-going-on-nan)";
            exitCode = 3;
            break;
        }
        const bool checkpointNow = !options.checkpoint.empty() && options.checkpointEvery > 0 && report.step % options.checkpointEvery == 0;
        Status saved = Ok{};
        try {
            if (checkpointNow) saved = saveCheckpoint(trainer, options.checkpoint);
        } catch (const TrainingError& error) {  // a parameter-server chief reads the servers to save
            failure = member ? member->describeFailure(error.what()) : error.what();
            exitCode = 3;
            break;
        }
        // Metrics and trace are published with each checkpoint (so they reach its step) and every so often.
        if (saved) saved = checkpointNow ? recorder->publish() : recorder->publishIfDue(nowNs());
        if (!saved) {
            failure = saved.error().message;
            exitCode = 1;
            break;
        }
    }
    progress.finish();
    const double wallSeconds = double(nowNs() - startNs) * 1e-9;
    if (auto status = recorder->close(); !status && exitCode == 0) {
        failure = status.error().message;
        exitCode = 1;
    }
    // A diverged run keeps its last good checkpoint; an interrupted or finished one saves its state.
    if (exitCode != 3) try {
            if (!options.checkpoint.empty())
                if (auto status = saveCheckpoint(trainer, options.checkpoint); !status && exitCode == 0) {
                    failure = status.error().message;
                    exitCode = 1;
                }
            if (!options.saveWeights.empty())
                if (auto status = saveWeights(trainer.primaryModel(), options.saveWeights); !status && exitCode == 0) {
                    failure = status.error().message;
                    exitCode = 1;
                }
        } catch (const TrainingError& error) {  // a parameter server lost while the chief read it
            failure = member ? member->describeFailure(error.what()) : error.what();
            exitCode = 3;
        }

    std::string summary = "{\"steps\":" + std::to_string(trainer.stepsDone()) + ",\"final_loss\":" + jsonNumber(lastLoss) +
                          ",\"samples_per_sec\":" + jsonNumber(wallSeconds > 0 ? double(samplesRun) / wallSeconds : 0.0) +
                          ",\"wall_seconds\":" + jsonNumber(wallSeconds) + ",\"replicas\":" + std::to_string(trainer.replicaCount());
    if (member)
        summary += ",\"task\":\"" + member->task().name() + "\",\"workers\":" + std::to_string(member->workerCount()) +
                   ",\"coordinator\":" + (member->coordinator() ? "true" : "false") + lostTasksMember(*member);
    if (splitsModel(*config)) {
        nlohmann::ordered_json figures;
        addPipelineFigures(figures, trainer, bubbles, lastReport);
        for (const auto& [key, value] : figures.items()) summary += ",\"" + key + "\":" + value.dump();
    }
    if (!trainer.data().test.empty()) {
        const EvalResult test = trainer.evaluate(trainer.data().test);
        summary += ",\"test_loss\":" + jsonNumber(test.loss);
        if (test.accuracy >= 0) summary += ",\"test_accuracy\":" + jsonNumber(test.accuracy);
    }
    if (const GradientAggregationStats aggregation = trainer.gradientAggregation(); aggregation.addOps > 0)
        summary += std::string(",\"gradient_aggregation\":{\"method\":\"") +
                   (config->model.aggregationMethod == AggregationMethod::Tree ? "tree" : "add_n") +
                   "\",\"peak_bytes\":" + std::to_string(aggregation.peakBytes) + ",\"add_ops\":" + std::to_string(aggregation.addOps) +
                   "}";
    if (interrupted()) summary += ",\"interrupted\":true";
    summary += "}";
    if (member && exitCode != 3) member->leave();
    std::puts(summary.c_str());
    if (!failure.empty()) std::fprintf(stderr, "error: %s\n", failure.c_str());
    // A task interrupted with the others (one Ctrl-C for every task of a terminal) may find its
    // peers gone in the step it was in: still an interruption, not a failure of the run.
    if (interrupted() && (exitCode == 0 || (member && exitCode == 3))) exitCode = 130;
    if (telemetry) telemetry->finish(exitCode, failure, summary);
    return exitCode;
}

/// The options `train` and distlab-worker share, on `command`; returns what finishes the options
/// once the command line is read.
std::function<void()> addRunOptions(CLI::App& command, const std::shared_ptr<TrainOptions>& options) {
    auto steps = std::make_shared<long long>(0);
    command.add_option("CONFIG", options->configPath, "run config (JSON)")->required();
    CLI::Option* stepsOption =
        command.add_option("--steps", *steps, "train until N steps in all (default: the config's steps, whose 0 means until Ctrl-C)")
            ->type_name("N")
            ->check(integerIn(0, kMaxSteps));
    command.add_option("--init-weights", options->initWeights, "start from these weights (safetensors)")->type_name("W");
    command.add_option("--save-weights", options->saveWeights, "save the trained weights here (safetensors)")->type_name("W");
    command.add_option("--checkpoint", options->checkpoint, "save a checkpoint here at the end (and every --checkpoint-every steps)")
        ->type_name("C");
    command.add_option("--checkpoint-every", options->checkpointEvery, "checkpoint every N steps (needs --checkpoint)")
        ->type_name("N")
        ->check(integerIn(0, kMaxSteps));
    command.add_option("--resume", options->resume, "resume from a checkpoint written by --checkpoint")->type_name("C");
    command.add_option("--metrics", options->metrics, "write one JSON line per step here")->type_name("M.jsonl");
    command.add_option("--trace", options->trace, "write a Chrome trace of the steps here (ui.perfetto.dev)")->type_name("T.json");
    command.add_option("--set", options->overrides, "override a config value, e.g. optimizer.learning_rate=0.05 (repeatable)")
        ->type_name("KEY.PATH=VALUE")
        ->allow_extra_args(false);
    command.add_flag(
        "--keep-going-on-nan", [options](std::int64_t) { options->haltOnNonFinite = false; },
        "keep training when the loss is not finite (default: stop with exit code 3)");
    command.add_flag("--quiet", options->quiet, "no progress output");
    return [options, steps, stepsOption] {
        if (stepsOption->count() > 0) options->steps = *steps;
    };
}

}  // namespace

void addTrainCommand(CLI::App& app, int& exitCode) {
    auto options = std::make_shared<TrainOptions>();
    auto faults = std::make_shared<std::vector<std::string>>();
    CLI::App* command = app.add_subcommand(
        "train",
        "Train a run config to its step count (a config's steps 0: until Ctrl-C), writing the files asked for; prints a JSON "
        "summary line last.");
    const std::function<void()> finish = addRunOptions(*command, options);
    command
        ->add_option("--fault", *faults,
                     "inject a fault: kill-worker:W@STEP, kill-ps:P@STEP, slow-worker:W=SPEED@STEP, "
                     "pause-worker:W@STEP, resume-worker:W@STEP (parameter servers); fail-device:R@STEP "
                     "(the synchronous strategies) (repeatable)")
        ->type_name("KIND:TARGET@STEP")
        ->allow_extra_args(false)
        ->check(CLI::Validator(
            [](std::string& text) {
                auto fault = parseFault(text);
                return fault ? std::string() : fault.error().message;
            },
            "", "fault"));
    command->callback([options, faults, finish, &exitCode] {
        finish();
        for (const std::string& text : *faults) options->faults.push_back(*parseFault(text));
        exitCode = runTrain(*options);
    });
}

void configureWorker(CLI::App& app, int& exitCode) {
    auto options = std::make_shared<TrainOptions>();
    options->worker = true;
    const std::function<void()> finish = addRunOptions(app, options);
    app.add_option("--task", options->task,
                   "the task to run, TYPE:INDEX (worker:1, chief:0) of the config's cluster (default: TF_CONFIG's task)")
        ->type_name("TYPE:INDEX");
    app.add_option("--telemetry", options->telemetry,
                   "stream this task's steps and state to the app watching the cluster at this address (the app passes it)")
        ->type_name("HOST:PORT");
    app.add_option("--redis", options->redis, "meet the other tasks through this Redis server instead of the coordinator's store")
        ->type_name("HOST:PORT");
    app.callback([options, finish, &exitCode] {
        finish();
        exitCode = runTrain(*options);
    });
}

}  // namespace distlab::cli
