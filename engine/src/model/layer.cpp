#include "distlab/model/layer.hpp"

#include <stdexcept>

namespace distlab {

// Layers whose backward does not split (splitsBackward() false) never reach these: the config's
// rules refuse zero-bubble schedules for them.
const Tensor& Layer::backwardInput(ConstTensorView, const Tensor&, bool, LayerContext&) {
    throw std::logic_error(name() + ": this layer's backward does not split into input and weight gradients");
}

void Layer::backwardWeight(ConstTensorView, LayerContext&) {
    throw std::logic_error(name() + ": this layer's backward does not split into input and weight gradients");
}

}  // namespace distlab
