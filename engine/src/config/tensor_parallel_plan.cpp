#include "distlab/config/tensor_parallel_plan.hpp"

namespace distlab {

Result<std::vector<TensorParallelLayer>> planTensorParallel(const ModelConfig& model, std::int64_t inputFeatures, std::int64_t tp) {
    std::vector<TensorParallelLayer> plan;
    std::int64_t width = inputFeatures;
    for (std::size_t i = 0; i < model.layers.size(); ++i) {
        const LayerConfig& layer = model.layers[i];
        if (layer.type != "dense")
            return Error{"model.layers[" + std::to_string(i) + "]: tensor parallelism splits dense layers; a " + layer.type +
                         " layer is not split in this version"};
        TensorParallelLayer placed{TensorParallelRole::Replicated, i, width, layer.units, layer.activation};
        width = layer.units;
        const bool partnerAfter = i + 1 < model.layers.size() && model.layers[i + 1].type == "dense";
        if (!plan.empty() && plan.back().role == TensorParallelRole::Column) {
            placed.role = TensorParallelRole::Row;
        } else if (partnerAfter) {
            placed.role = TensorParallelRole::Column;
            if (layer.units % tp != 0)
                return Error{"model.layers[" + std::to_string(i) + "].units: " + std::to_string(layer.units) +
                             " output columns do not split among tensor_parallel " + std::to_string(tp) + " devices (use a multiple of " +
                             std::to_string(tp) + ")"};
        }
        plan.push_back(placed);
    }
    return plan;
}

std::int64_t tensorParallelReducedValues(const std::vector<TensorParallelLayer>& plan, std::int64_t batch) {
    std::int64_t values = 0;
    for (const TensorParallelLayer& layer : plan) {
        if (layer.role == TensorParallelRole::Row) values += batch * layer.units;
        if (layer.role == TensorParallelRole::Column && layer.layer > 0) values += batch * layer.inputs;
    }
    return values;
}

const char* roleName(TensorParallelRole role) {
    switch (role) {
        case TensorParallelRole::Column:
            return "column";
        case TensorParallelRole::Row:
            return "row";
        case TensorParallelRole::Replicated:
            break;
    }
    return "replicated";
}

}  // namespace distlab
