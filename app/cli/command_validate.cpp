// distlab-cli validate: checks a config and the data it names, without training.
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "distlab/distribute/trainer.hpp"
#include "run_setup.hpp"

namespace distlab::cli {

int runValidate(Arguments args) {
    if (args.size() != 1 || args[0].empty() || args[0][0] == '-')
        return inputError("usage: distlab-cli validate CONFIG");
    const std::string path(args[0]);
    auto config = loadConfigWithOverrides(path, {});
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

}  // namespace distlab::cli
