#pragma once
// Loss and accuracy of one model copy over a data set, in chunks (shared by every strategy).
#include "distlab/data/dataset.hpp"
#include "distlab/telemetry/step_report.hpp"
#include "distlab/model/loss.hpp"
#include "distlab/model/model.hpp"

namespace distlab {

/// Scratch buffers an evaluation reuses from call to call.
struct EvaluationBuffers {
    explicit EvaluationBuffers(const Model& model) : context(model.makeContext()) {}
    ModelContext context;
    Tensor input;
    BatchTargets targets;
    Tensor grad;
    std::vector<std::int64_t> indices;
};

/// Mean loss and accuracy of `model` over the first maxExamples of `data` (0: all).
EvalResult evaluateModel(const Model& model, const LossFunction& loss, const Dataset& data, std::int64_t maxExamples,
                         EvaluationBuffers& buffers);

}  // namespace distlab
