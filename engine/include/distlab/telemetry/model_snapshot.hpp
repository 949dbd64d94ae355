#pragma once
// An immutable picture of replica 0's model, published now and then for views that need whole
// tensors (the network diagram, the decision boundary). Swapped under a short lock, never per step.
#include <cstdint>
#include <string>
#include <vector>

#include "distlab/model/parameter_store.hpp"

namespace distlab {

struct ModelSnapshot {
    std::int64_t step = 0;
    std::vector<ParameterInfo> parameters;
    std::vector<float> values;              ///< replica 0's flat parameter buffer
    std::vector<std::int64_t> layerWidths;  ///< inputs, then every layer's units
    // The model's output over a grid covering the 2-D input data (empty unless features == 2).
    int gridResolution = 0;
    double gridMinX = 0, gridMaxX = 0, gridMinY = 0, gridMaxY = 0;
    std::vector<float> grid;  ///< [row][col], row 0 at gridMinY: P(class 1) or the regression output
};

}  // namespace distlab
