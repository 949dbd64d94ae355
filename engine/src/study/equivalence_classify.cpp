// Which variants of an equivalence study must compute the baseline's update, and in which order
// each sums its gradient (docs/semantics.md §4–6; docs/interfaces.md §13.7). Decided from the
// configs alone, before anything trains.
#include "distlab/study/equivalence.hpp"

namespace distlab {

namespace {

bool isSynchronousAllReduce(StrategyKind kind) {
    // The strategies of MirroredTrainer: every replica's gradient is all-reduced with SUM and the
    // same update applied (docs/semantics.md §4.2 and §6.1: central storage applies it once).
    return kind == StrategyKind::OneDevice || kind == StrategyKind::Mirrored || kind == StrategyKind::CentralStorage;
}

std::string count(std::int64_t n) { return std::to_string(n); }

/// The reduction algorithm's order of additions, as docs/semantics.md §5.1 describes it.
std::string algorithmOrder(const StrategyConfig& strategy) {
    switch (strategy.crossDeviceOps) {
        case CrossDeviceOps::ReductionToOneDevice:
            return "device 0 adds every replica's buffer in rank order";
        case CrossDeviceOps::HierarchicalCopy:
            return "hierarchical copy sums each half of the replicas on its lead, then lead 0 adds lead 1's sum "
                   "(the leads rotate from pack to pack)";
        case CrossDeviceOps::Tree:
            return "a binary tree adds the children's sums level by level up to rank 0";
        case CrossDeviceOps::Ring:
        case CrossDeviceOps::Nccl:  // runs the ring on CPU devices (docs/semantics.md §5.1)
            break;
    }
    return "a ring adds the replicas' partial sums one rank at a time, each chunk starting at another rank";
}

std::string packing(const StrategyConfig& strategy) {
    if (strategy.bytesPerPack > 0) return ", in packs of about " + count(strategy.bytesPerPack) + " bytes";
    if (strategy.numPacks > 1) return ", in " + count(strategy.numPacks) + " packs";
    return {};
}

/// The part of a config the equivalence does not depend on, cleared: what is left must be equal.
RunConfig withoutEquivalentKnobs(RunConfig config) {
    config.name.clear();
    config.steps = 0;
    config.threads = 0;
    config.evalEvery = 0;
    config.baseDirectory.clear();
    // add_n and tree add a residual block's gradient terms in the same order (docs/semantics.md §4.4).
    config.model.aggregationMethod = AggregationMethod::AddN;
    if (isSynchronousAllReduce(config.strategy.type)) config.strategy = StrategyConfig{};
    return config;
}

/// Why `variant` may differ from `baseline`, or empty when it must compute the same update.
std::string reasonToDiffer(const RunConfig& variant, const RunConfig& baseline, bool sameSeedAndData) {
    const StrategyConfig& strategy = variant.strategy;
    if (strategy.type == StrategyKind::ParameterServer && strategy.mode == ParameterServerMode::Async)
        return "asynchronous parameter servers: each update applies one worker's gradient, computed on parameters " +
               count(strategy.workers - 1) + (strategy.workers == 2 ? " update" : " updates") +
               " old on average (staleness), and which worker comes next depends on thread timing (docs/semantics.md §6.3)";
    if (strategy.type == StrategyKind::ParameterServer && !(baseline.strategy == strategy))
        return "synchronous parameter servers average " + count(strategy.workers) + " workers' gradients of " +
               count(variant.data.globalBatchSize) + " examples each: an update of " +
               count(strategy.workers * variant.data.globalBatchSize) +
               " examples whose epochs drop other remainders (docs/semantics.md §6.4)";
    if (baseline.strategy.type == StrategyKind::ParameterServer && !(baseline.strategy == strategy))
        return "the baseline trains on parameter servers: its updates are not the synchronous all-reduce's";
    if (!sameSeedAndData) return "another seed or other data: other initial weights or other batches";
    if (variant.data.globalBatchSize != baseline.data.globalBatchSize)
        return "another global batch (" + count(variant.data.globalBatchSize) + " vs " + count(baseline.data.globalBatchSize) +
               "): each update averages other examples";
    if (!(variant.optimizer == baseline.optimizer)) return "another optimizer or optimizer setting: another update rule";
    if (!(variant.model == baseline.model)) return "another model: other weights, not comparable";
    if (variant.precision != baseline.precision) return "another precision: other rounding at every operation";
    if (!(withoutEquivalentKnobs(variant) == withoutEquivalentKnobs(baseline))) return "another configuration";
    return {};
}

/// Why a must-equal variant must: the rules of docs/semantics.md that make it so.
std::string reasonToEqual(const RunConfig& variant, const RunConfig& baseline) {
    if (variant.strategy == baseline.strategy && variant.model.aggregationMethod == baseline.model.aggregationMethod)
        return "the same strategy as the baseline on the same seed, data, model and optimizer";
    std::string reason = "the same seed, data, model, optimizer and global batch of " + count(variant.data.globalBatchSize);
    if (variant.strategy.replicaCount() != baseline.strategy.replicaCount())
        reason +=
            "; N replicas scale their loss by the global batch and SUM-reduce it, which is the gradient of one "
            "device on the whole batch (docs/semantics.md §4.2)";
    if (variant.strategy.gradientAccumulationSteps != baseline.strategy.gradientAccumulationSteps)
        reason += "; accumulating k micro-batches of G/(N·k) before one update is one step on the whole batch (docs/semantics.md §4.3)";
    if (variant.strategy.type == StrategyKind::CentralStorage || baseline.strategy.type == StrategyKind::CentralStorage)
        reason += "; central storage applies the same update once and broadcasts it (docs/semantics.md §6.1)";
    if (variant.strategy.crossDeviceOps != baseline.strategy.crossDeviceOps || variant.strategy.numPacks != baseline.strategy.numPacks ||
        variant.strategy.bytesPerPack != baseline.strategy.bytesPerPack)
        reason += "; the reduction algorithm and packing change only the order of the additions (docs/semantics.md §5)";
    if (variant.model.aggregationMethod != baseline.model.aggregationMethod)
        reason += "; add_n and tree aggregation add the same terms in the same order (docs/semantics.md §4.4)";
    return reason;
}

}  // namespace

const char* equivalenceClassName(EquivalenceClass kind) {
    switch (kind) {
        case EquivalenceClass::Baseline:
            return "baseline";
        case EquivalenceClass::MustEqual:
            return "must equal";
        case EquivalenceClass::MayDiffer:
            break;
    }
    return "may differ";
}

std::string summationOrder(const RunConfig& config) {
    const StrategyConfig& strategy = config.strategy;
    const std::int64_t batch = config.data.globalBatchSize;
    if (strategy.type == StrategyKind::ParameterServer) {
        std::string order = "each worker sums its own batch of " + count(batch) + " examples";
        if (strategy.replicasPerWorker > 1)
            order += " over " + count(strategy.replicasPerWorker) + " replicas (" + algorithmOrder(strategy) + ")";
        return order + (strategy.mode == ParameterServerMode::Async ? "; the servers apply one worker's gradient at a time"
                                                                    : "; the servers average the workers' gradients in worker order");
    }
    const std::int64_t replicas = strategy.replicaCount();
    const std::int64_t k = strategy.gradientAccumulationSteps;
    std::string order;
    if (replicas == 1)
        order = k == 1 ? "one pass sums the gradient over all " + count(batch) + " examples" : "one device";
    else
        order = count(replicas) + " replicas each sum their " + count(batch / replicas) + " examples";
    if (k > 1)
        order += (replicas == 1 ? " adds " : ", each adding ") + count(k) + " micro-batches of " + count(batch / (replicas * k)) +
                 " examples into one buffer";
    if (replicas > 1) order += "; then " + algorithmOrder(strategy) + packing(strategy);
    return order;
}

EquivalenceVerdict classifyEquivalence(const RunConfig& variant, const RunConfig& baseline, bool sameSeedAndData) {
    EquivalenceVerdict verdict;
    verdict.summationOrder = summationOrder(variant);
    if (std::string differ = reasonToDiffer(variant, baseline, sameSeedAndData); !differ.empty()) {
        verdict.kind = EquivalenceClass::MayDiffer;
        verdict.reason = std::move(differ);
        verdict.explanation = "a different computation: the weights drift apart by far more than float rounding";
        return verdict;
    }
    verdict.kind = EquivalenceClass::MustEqual;
    verdict.reason = reasonToEqual(variant, baseline);
    const std::string baselineOrder = summationOrder(baseline);
    verdict.orderDiffers = verdict.summationOrder != baselineOrder;
    verdict.explanation = verdict.orderDiffers
                              ? "float addition is not associative: the baseline's " + baselineOrder + ", while here " +
                                    verdict.summationOrder +
                                    "; each gradient differs in its last bits (about 1e-7 of its size) and the updates carry that on: the "
                                    "difference starts near float precision, and over many updates training can amplify it (a non-convex "
                                    "loss is sensitive to small changes), as between two runs of one program on different hardware; "
                                    "neither run is wrong. A difference far above 1e-6 from the first updates would be a bug"
                              : "the same additions in the same order as the baseline: the weights should be bit-identical";
    return verdict;
}

std::vector<EquivalenceVerdict> classifyStudy(const Study& study) {
    const StudyVariant& baseline = study.variants.at(static_cast<std::size_t>(study.baseline()));
    std::vector<EquivalenceVerdict> verdicts;
    for (std::size_t v = 0; v < study.variants.size(); ++v) {
        if (static_cast<int>(v) != study.baseline()) {
            verdicts.push_back(classifyEquivalence(study.variants[v].config, baseline.config, study.variants[v].sameSeedAndDataAsBaseline));
            continue;
        }
        EquivalenceVerdict verdict;
        verdict.kind = EquivalenceClass::Baseline;
        verdict.reason = "the variant the others are compared with";
        verdict.summationOrder = summationOrder(baseline.config);
        verdicts.push_back(std::move(verdict));
    }
    return verdicts;
}

}  // namespace distlab
