// distlab-cli validate: checks a config and the data it names, without training.
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/config/run_config_json.hpp"
#include "run_setup.hpp"

namespace distlab::cli {

namespace {

int runValidate(const std::string& path) {
    auto config = loadRunConfig(path, {}, "CONFIG");
    if (!config) return inputError(config.error().message);
    auto created = Trainer::create(*config);
    if (!created) return inputError(path + ": " + created.error().message);
    const Trainer& trainer = **created;
    nlohmann::ordered_json out;
    out["valid"] = true;
    out["name"] = config->name;
    out["strategy"] = configName(config->strategy.type);
    out["replicas"] = trainer.replicaCount();
    out["parameters"] = trainer.replicaModel(0).store().totalSize();
    out["input_features"] = trainer.data().train.features;
    out["train_samples"] = trainer.data().train.count;
    out["test_samples"] = trainer.data().test.count;
    out["steps"] = config->steps;
    std::puts(out.dump().c_str());
    return 0;
}

}  // namespace

void addValidateCommand(CLI::App& app, int& exitCode) {
    auto path = std::make_shared<std::string>();
    CLI::App* command = app.add_subcommand("validate", "Check a config and the data it names without training; prints a JSON summary.");
    command->add_option("CONFIG", *path, "run config (JSON)")->required();
    command->callback([path, &exitCode] { exitCode = runValidate(*path); });
}

}  // namespace distlab::cli
