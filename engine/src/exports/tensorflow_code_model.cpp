// The TensorFlow code's model, loss and optimizer: DistLab's layers as a Keras functional model with
// the same names, its per-example losses and its optimizers as Keras' (docs/semantics.md §7, §8).
#include "exports/python_text.hpp"
#include "exports/tensorflow_code_parts.hpp"

namespace distlab::tensorflow_code {
namespace {

/// A layer name as Keras takes it: DistLab's "/" becomes "." and anything outside [A-Za-z0-9._-]
/// '_' (TensorFlow's name scopes allow no more).
std::string kerasName(const std::string& name) {
    std::string out = name;
    for (char& c : out) {
        if (c == '/')
            c = '.';
        else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            c = '_';
    }
    return out;
}

std::string activationName(Activation activation) {
    return activation == Activation::Linear ? "None" : pythonString(configName(activation));
}

/// Writes the Keras calls of `layers` (the names of docs/interfaces.md §2): the first layer reads
/// `input`, every layer writes `output`. Dense layers are recorded in `names` (Keras name -> DistLab's).
class LayerWriter {
public:
    explicit LayerWriter(std::vector<std::pair<std::string, std::string>>& names) : m_names(names) {}

    void layers(const std::vector<LayerConfig>& configs, const std::string& prefix, std::string input, const std::string& output,
                int depth) {
        for (std::size_t i = 0; i < configs.size(); ++i) {
            const LayerConfig& layer = configs[i];
            const std::string name = prefix + (layer.name.empty() ? layer.type + "_" + std::to_string(i) : layer.name);
            if (layer.type == "residual")
                residual(layer, name, input, output, depth);
            else
                dense(layer, name, input, output);
            input = output;
        }
    }

    std::string text;

private:
    void dense(const LayerConfig& layer, const std::string& name, const std::string& input, const std::string& output) {
        const std::string keras = kerasName(name);
        m_names.emplace_back(keras, name);
        text += kIndent + output + " = tf.keras.layers.Dense(" + std::to_string(layer.units) +
                ", activation=" + activationName(layer.activation) + ", kernel_initializer=INITIALIZER, name=" + pythonString(keras) +
                ")(" + input + ")\n";
    }

    void residual(const LayerConfig& layer, const std::string& name, const std::string& input, const std::string& output, int depth) {
        const std::int64_t branches = std::max<std::int64_t>(1, layer.branches);
        // Names appended, not prepended: GCC 12 warns wrongly (-Wrestrict) on "literal" + std::string.
        std::string terms = "terms", branch = "h";
        terms += suffix(depth);
        branch += suffix(depth + 1);
        std::string sum = "y = x + f_1(x)";
        if (branches > 2) sum += " + ...";
        if (branches > 1) sum += " + f_" + std::to_string(branches) + "(x)";
        text +=
            kIndent + "# " + pythonString(name) + ": " + sum + ", each branch its own copy of the inner layers (docs/semantics.md §7)\n";
        text += kIndent + terms + " = [" + input + "]\n";
        for (std::int64_t b = 0; b < branches; ++b) {
            const std::string prefix = branches > 1 ? name + "/branch_" + std::to_string(b) + "/" : name + "/";
            layers(layer.layers, prefix, input, branch, depth + 1);
            text += kIndent + terms + ".append(" + branch + ")\n";
        }
        text += kIndent + output + " = tf.keras.layers.Add(name=" + pythonString(kerasName(name)) + ")(" + terms + ")\n";
    }

    static std::string suffix(int depth) { return depth == 0 ? "" : std::to_string(depth); }
    inline static const std::string kIndent = "    ";  // every layer is a statement of build_model

    std::vector<std::pair<std::string, std::string>>& m_names;
};

std::string initializer(InitKind init) {
    switch (init) {
        case InitKind::GlorotUniform:
            return "INITIALIZER = \"glorot_uniform\"  # U(-l, l), l = sqrt(6 / (inputs + units)); biases start at 0\n";
        case InitKind::HeNormal:
            return "INITIALIZER = \"he_normal\"  # Keras' truncated normal, as DistLab's; biases start at 0\n";
        case InitKind::Zeros:
            return "INITIALIZER = \"zeros\"\n";
    }
    return "";
}

std::string model(const Plan& plan) {
    std::vector<std::pair<std::string, std::string>> names;
    LayerWriter writer(names);
    writer.layers(plan.config.model.layers, "", "inputs", "h", 0);
    std::string out = initializer(plan.config.model.init);
    out +=
        "\n\ndef build_model(features):\n"
        "    \"\"\"DistLab's layers with DistLab's names (docs/interfaces.md §2; Keras takes '.' for '/'): a dense\n"
        "    kernel is [inputs, units] in both, y = act(x W + b); the last layer's outputs are logits.\"\"\"\n"
        "    inputs = tf.keras.Input(shape=(features,), name=\"features\")\n";
    out += writer.text;
    if (plan.config.precision != Precision::Float32)
        out += "    h = tf.keras.layers.Activation(\"linear\", dtype=\"float32\", name=\"float32_outputs\")(h)  # the loss in float32\n";
    out += "    return tf.keras.Model(inputs, h, name=" + pythonString(kerasName(plan.stem)) + ")\n";

    out += "\n\n# Keras layer -> DistLab parameter prefix, for DistLab's initial weights.\nDISTLAB_NAMES = {\n";
    for (const auto& [keras, distlab] : names) out += "    " + pythonString(keras) + ": " + pythonString(distlab) + ",\n";
    out += "}\n";
    out +=
        "\n\ndef load_distlab_weights(model):\n"
        "    \"\"\"Starts from DistLab's initial weights when INIT_FILE is there; otherwise Keras' initializers\n"
        "    draw their own (the same distributions, other numbers).\"\"\"\n"
        "    if not os.path.exists(INIT_FILE):\n"
        "        return\n"
        "    weights = read_safetensors(INIT_FILE)\n"
        "    for keras_name, distlab_name in DISTLAB_NAMES.items():\n"
        "        model.get_layer(keras_name).set_weights([weights[distlab_name + \"/kernel\"], weights[distlab_name + \"/bias\"]])\n";
    return out;
}

std::string loss(const Plan& plan) {
    std::string out = "\n\ndef per_example_loss(y, outputs):\n";
    if (plan.classification)
        return out +
               "    \"\"\"softmax_cross_entropy: integer labels against the logits, the softmax inside the loss.\"\"\"\n"
               "    return tf.keras.losses.sparse_categorical_crossentropy(y, outputs, from_logits=True)\n";
    return out +
           "    \"\"\"mse: the mean over the outputs of the squared error, per example (Keras' convention, DistLab's).\"\"\"\n"
           "    return tf.keras.losses.mean_squared_error(y, outputs)\n";
}

std::string optimizer(const Plan& plan) {
    const OptimizerConfig& optimizer = plan.config.optimizer;
    std::string out = "\n\ndef make_optimizer():\n";
    if (optimizer.type == OptimizerKind::Sgd) {
        if (optimizer.momentum > 0)
            out += comment(
                "Keras' momentum keeps v = momentum * v - lr * g and adds v; DistLab's (PyTorch's form) "
                "keeps b = momentum * b + g and subtracts lr * b: the same steps while the learning rate "
                "is constant (docs/semantics.md §8).",
                4);
        out += "    optimizer = tf.keras.optimizers.SGD(learning_rate=" + pythonFloat(optimizer.learningRate) +
               ", momentum=" + pythonFloat(optimizer.momentum) + ", nesterov=" + (optimizer.nesterov ? "True" : "False") + ")\n";
    } else {
        out += comment(
            "Keras' Adam adds epsilon to sqrt(v) before correcting v's bias, DistLab (PyTorch's form) "
            "after: Keras' epsilon acts as epsilon / sqrt(1 - beta_2**t), a little larger in the first "
            "steps; with a small epsilon the updates agree to many digits (docs/semantics.md §8).",
            4);
        out += "    optimizer = tf.keras.optimizers.Adam(\n        learning_rate=" + pythonFloat(optimizer.learningRate) +
               ", beta_1=" + pythonFloat(optimizer.beta1) + ", beta_2=" + pythonFloat(optimizer.beta2) +
               ", epsilon=" + pythonFloat(optimizer.epsilon) + ")\n";
    }
    if (plan.config.precision == Precision::MixedFloat16)
        out += comment(
                   "Dynamic loss scaling: from 2**15, doubled after 2000 finite steps, halved (and the step "
                   "skipped) when a gradient is not finite: Keras' defaults, DistLab's design.",
                   4) +
               "    optimizer = tf.keras.mixed_precision.LossScaleOptimizer(optimizer)\n";
    return out + "    return optimizer\n";
}

}  // namespace

std::string modelSection(Plan& plan) {
    return sectionTitle("the model, loss and optimizer (docs/semantics.md §7, §8)") + model(plan) + loss(plan) + optimizer(plan);
}

}  // namespace distlab::tensorflow_code
