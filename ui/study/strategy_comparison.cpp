#include "study/strategy_comparison.hpp"

#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>

#include <algorithm>

#include <distlab/config/run_config_json.hpp>

namespace distlab::ui {

namespace {

// A variant written as overrides of the base: its whole "strategy" object and its batch, so the
// saved study reads back as these three runs.
StudyVariantSpec variantOf(const QString& label, const RunConfig& config) {
    const QJsonObject json = QJsonDocument::fromJson(QByteArray::fromStdString(runConfigToJson(config))).object();
    StudyVariantSpec variant;
    variant.label = label.toStdString();
    variant.overrides.emplace_back(
        "strategy", QJsonDocument(json.value(QStringLiteral("strategy")).toObject()).toJson(QJsonDocument::Compact).toStdString());
    variant.overrides.emplace_back("data.global_batch_size", std::to_string(config.data.globalBatchSize));
    return variant;
}

}  // namespace

Result<Study> strategyComparison(const RunConfig& base, std::int64_t updates) {
    const std::int64_t n = std::max<std::int64_t>(1, base.strategy.type == StrategyKind::ParameterServer
                                                         ? static_cast<std::int64_t>(base.strategy.workers)
                                                         : static_cast<std::int64_t>(base.strategy.replicaCount()));
    const std::int64_t batch = std::max(n, base.data.globalBatchSize - base.data.globalBatchSize % n);
    RunConfig common = base;
    common.data.globalBatchSize = batch;
    common.strategy = StrategyConfig{};
    common.strategy.crossDeviceOps = base.strategy.crossDeviceOps;
    if (base.strategy.type == StrategyKind::ParameterServer) {
        common.strategy.parameterServers = base.strategy.parameterServers;
        common.strategy.partitioner = base.strategy.partitioner;
    }
    RunConfig mirrored = common;
    mirrored.strategy.type = StrategyKind::Mirrored;
    for (int d = 0; d < n; ++d) mirrored.strategy.devices.push_back(DeviceName{DeviceName::Kind::Cpu, d});
    RunConfig async = common;
    async.strategy.type = StrategyKind::ParameterServer;
    async.strategy.workers = static_cast<int>(n);
    async.strategy.mode = ParameterServerMode::Async;
    RunConfig sync = async;
    sync.strategy.mode = ParameterServerMode::Sync;
    sync.data.globalBatchSize = batch / n;  // each worker's batch; the update averages all n of them

    StudySpec spec;
    spec.name = base.name + "-mirrored-async-sync";
    spec.baseConfigJson = runConfigToJson(common);
    spec.steps = updates;
    spec.variants.push_back(variantOf(QObject::tr("mirrored, %1 replicas").arg(n), mirrored));
    spec.variants.push_back(variantOf(QObject::tr("async PS, %1 workers").arg(n), async));
    spec.variants.push_back(variantOf(QObject::tr("sync PS, %1 workers").arg(n), sync));
    return buildStudy(std::move(spec), "comparison", base.baseDirectory);
}

}  // namespace distlab::ui
