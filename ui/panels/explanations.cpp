#include "panels/explanations.hpp"

#include "panels/explanations_collectives.hpp"
#include "panels/explanations_cluster.hpp"
#include "panels/explanations_pipeline.hpp"
#include "panels/explanations_parameter_server.hpp"

#include <QHash>
#include <QVariant>
#include <QWidget>

namespace distlab::ui {

namespace {

const char* const kProperty = "distlabExplainKey";

QHash<QString, Explanation> buildTable() {
    QHash<QString, Explanation> t;
    auto add = [&t](const char* key, const char* title, const char* body) {
        t.insert(QString::fromLatin1(key), Explanation{QString::fromUtf8(title), QString::fromUtf8(body)});
    };
    // Model
    add("model.layers", "Layers",
        "<p>The model is a stack of <b>dense</b> layers: every unit of a layer takes a weighted sum of all units of "
        "the layer before, adds a bias and applies its activation.</p><p>Add layers to give the model more "
        "capacity; the last layer is the output and needs one unit per class (softmax cross-entropy) or per "
        "target (mean squared error). The app adjusts the output layer when the data changes.</p>"
        "<p>Changing the model during a run resets the run: the new model starts from fresh weights.</p>");
    add("model.units", "Units",
        "<p>How many numbers this layer outputs. More units: more capacity and more "
        "parameters (inputs × units weights + units biases), so more compute and more bytes to reduce per step.</p>");
    add("model.activation", "Activation",
        "<p>The non-linearity after the weighted sum; the engine offers exactly these five. <b>relu</b>, "
        "max(0, x), is the usual default for hidden layers. <b>gelu</b> weighs x by the chance that a standard "
        "normal value is below it (exact, with erf, as TensorFlow's <i>approximate=False</i> and PyTorch's "
        "default): a smooth relu used by transformers. <b>tanh</b> and <b>sigmoid</b> are smooth and bounded "
        "(nice on small 2-D problems). <b>linear</b> means none (use it on the output layer: the loss applies "
        "softmax itself).</p>");
    add("model.loss", "Loss",
        "<p><b>softmax_cross_entropy</b> for classification: integer labels, one output unit per class. "
        "<b>mse</b> (mean squared error) for regression: one output unit per target value.</p>");
    add("model.init", "Initialisation",
        "<p>How the weights start. <b>glorot_uniform</b> suits tanh/sigmoid, <b>he_normal</b> suits relu, "
        "<b>zeros</b> makes every unit of a layer identical (they never become different: a lesson, not a "
        "choice). The run's seed fixes the values, so two runs with the same seed start identically.</p>");
    add("model.diagram", "Network diagram",
        "<p>Replica 0's model: inputs on the left, the output on the right. Edge colour is the weight's sign "
        "(blue positive, orange negative), width its magnitude; it is redrawn live while training. Hover a "
        "node to read its bias and its incoming weights. Large layers show their first units only.</p>");
    // Data
    add("data.source", "Data source",
        "<p><b>synthetic</b>: small 2-D sets (as in TensorFlow Playground), generated from the seed; the "
        "decision boundary view shows them. <b>csv</b>: numbers, one sample per line, label in a column. "
        "<b>idx</b>: MNIST-style image files (.gz read directly). <b>fashion_mnist</b>: the installed "
        "Fashion-MNIST set (784 inputs, 10 classes). <b>random</b>: Gaussian features and random labels, for "
        "benchmarks where only the shapes matter.</p>");
    add("data.kind", "Synthetic set",
        "<p>circle, xor, gauss and spiral are two-class problems (spiral needs a deeper model); the "
        "regression sets ask for one output value.</p>");
    add("data.samples", "Samples", "<p>How many points are generated in all (train and test together).</p>");
    add("data.noise", "Noise",
        "<p>How far points stray from their ideal position (0: none, 1: a lot). "
        "Noise makes the classes overlap, so 100% accuracy becomes impossible.</p>");
    add("data.train_fraction", "Train fraction",
        "<p>The share of samples used for training; the rest is the test set the app evaluates live "
        "(the test curves of the learning view).</p>");
    add("data.seed", "Seed",
        "<p>One number that fixes everything random in the run: the generated data, the initial weights and "
        "the shuffling. Same seed, same run. <b>New seed</b> draws another one (and resets the run).</p>");
    add("data.global_batch_size", "Global batch size",
        "<p>The number of samples in one optimizer step over <b>all</b> replicas together. With N replicas "
        "each replica takes G / N of them (its shard), and with k accumulation steps each micro-step takes "
        "G / (N·k); G must divide evenly.</p><p>Keeping G fixed while adding replicas keeps the maths of the "
        "step the same (mirrored ≡ one device with batch G); each replica just does less of the work.</p>");
    add("data.shuffle", "Shuffle",
        "<p>Reshuffles the training samples at every epoch (from the seed). "
        "Without it, batches come in file order.</p>");
    add("data.files", "Data files",
        "<p>Relative paths are resolved against the folder of the run config; "
        "the app saves them relative to the config file, so the run can be moved with its data.</p>");
    add("data.label_column", "Label column",
        "<p>Which CSV column holds the label; negative numbers count "
        "from the end (-1: the last column).</p>");
    // Strategy
    add("strategy.type.one_device", "One device",
        "<p>Everything runs on one device: one copy of the model, no communication. The baseline every "
        "distributed run is compared with.</p>");
    add("strategy.type.mirrored", "Mirrored (synchronous data parallelism)",
        "<p>Every replica holds a full copy of the model (a <i>mirrored</i> variable) and takes its shard of "
        "the global batch. Each step, every replica computes gradients on its shard; the gradients are "
        "<b>summed</b> across replicas (an all-reduce) and the same update is applied to every copy, so the "
        "copies stay identical.</p><p>Each replica divides its loss by the <b>global</b> batch, so the sum "
        "equals the gradient of one device on the whole batch: mirrored on N devices computes the same update "
        "as one device with batch G. Use it when one device is too slow; the price is the communication.</p>");
    add("strategy.devices", "Logical devices",
        "<p>How many replicas to run. Here they are <b>logical</b> CPU devices: threads carved from this "
        "machine's CPU, each with its own copy of every variable, so every replica's values, gradients and "
        "communication are real and can be shown. More replicas than cores share the cores (slower, but the "
        "maths stays the same).</p>");
    // The cross-device reduction algorithms and packing: addCollectiveExplanations.
    add("strategy.gradient_accumulation_steps", "Gradient accumulation",
        "<p>Splits each replica's shard into k micro-batches, computes and <b>sums</b> their gradients (each "
        "scaled by the whole global batch) and applies one update: the same step as k× the batch at once, with "
        "1/k of the activation memory. Reduction and update still happen once per step.</p>");
    // Optimizer
    add("optimizer.type.sgd", "SGD",
        "<p>Stochastic gradient descent: w ← w − lr·g. With momentum it keeps "
        "a running velocity of past gradients, which smooths and speeds up progress.</p>");
    add("optimizer.type.adam", "Adam",
        "<p>Adapts the step of every parameter from running averages of the "
        "gradient (β1) and of its square (β2). Forgiving of the learning rate; a good default.</p>");
    add("optimizer.learning_rate", "Learning rate",
        "<p>The size of each update. Too small: slow progress; too large: the loss jumps or diverges. It "
        "applies <b>live</b>, at the next step, while training runs.</p>");
    add("optimizer.momentum", "Momentum",
        "<p>How much of the previous velocity carries over (0: plain SGD, "
        "0.9: common). Nesterov looks ahead along the velocity before taking the gradient.</p>");
    add("optimizer.adam_parameters", "Adam's β1, β2, ε",
        "<p>β1 and β2 are the decay of Adam's running "
        "averages (0.9 and 0.999 are the usual values); ε keeps the division stable.</p>");
    add("run.steps", "Steps",
        "<p>How many optimizer steps the run takes before it finishes (0: until you "
        "pause it).</p>");
    add("run.name", "Run name", "<p>The name of the run, shown in the title and written into saved files.</p>");
    // Controls
    add("run.controls", "Play, pause, step, reset",
        "<p><b>Play</b> trains continuously; <b>Pause</b> stops between two steps (weights can then be saved); "
        "<b>Step</b> runs exactly one optimizer step; <b>Reset</b> discards the run and starts it again from "
        "the same seed.</p>");
    add("run.speed", "Speed limit",
        "<p>At most this many steps per second, so you can follow a run step by "
        "step. A window opens at 20 steps per second; the label beside the slider says how long the whole "
        "run takes at that pace. <b>No limit</b> trains as fast as the machine can, and a second click "
        "brings the pace back. A new limit applies at once.</p>"
        "<p>Under parameter servers the limit paces the <b>workers</b>, not the updates: a worker's gradient "
        "takes at least as long as the limit allows, and a worker at speed 0.5 twice that, so a straggler "
        "still pushes half as often and staleness looks as it would at full speed.</p>");
    // Views
    add("view.variable_lab", "Variable lab",
        "<p>Try TensorFlow's distributed-variable rules by hand, without training: create a variable under a "
        "strategy (<b>on_write</b> makes a mirrored variable, one copy per replica kept equal; <b>on_read</b> a "
        "sync-on-read one, each replica changing its own copy), then apply assign, assign_add, assign_sub or "
        "read in replica or cross-replica context.</p><p>Each card shows every copy and what a cross-replica "
        "read returns; the log says which rule decided each outcome, or the error TensorFlow would raise.</p>");
    add("view.learning", "Learning curves",
        "<p>Training loss and accuracy of every step (of the batch just trained on) and test loss and accuracy "
        "of the live evaluations. The <b>smoothing</b> slider applies TensorBoard's debiased exponential moving "
        "average; the faint curve is the raw data.</p>");
    add("view.replicas", "Replicas",
        "<p>One colour per replica. The chosen parameter's value on every replica: under mirrored the copies "
        "stay equal (the lines lie on top of each other, the spread is 0). Gradient norms before the reduction "
        "differ (each replica saw different data); after the reduction they are equal: every replica applies "
        "the same summed gradient.</p>");
    add("view.throughput", "Throughput",
        "<p>Samples and steps per second, and where the time of a step goes: compute (forward and backward), "
        "communication (the all-reduce), waiting for peers, the optimizer update, and idle time until the "
        "slowest replica is done.</p>");
    add("view.timeline", "Device timeline",
        "<p>A Gantt chart of the last steps: one lane per logical device, compute / communication / waiting "
        "/ optimizer / idle spans from the engine's own clocks. Scroll with the wheel, zoom with Ctrl+wheel "
        "(or the buttons); <i>Follow</i> keeps the newest step in view.</p>");
    add("view.boundary", "Decision boundary",
        "<p>For 2-D data: the model's output over the plane as a heat map (orange class 0, blue class 1), with "
        "the training points (filled) and test points (ringed) on top, refreshed live, as TensorFlow "
        "Playground shows it.</p>");
    addParameterServerExplanations(t);
    addClusterExplanations(t);
    addPipelineExplanations(t);
    addCollectiveExplanations(t);
    return t;
}

}  // namespace

Explanation explanationFor(const QString& key) {
    static const QHash<QString, Explanation> table = buildTable();
    return table.value(key);
}

void setExplainKey(QWidget* widget, const QString& key) {
    widget->setProperty(kProperty, key);
    const Explanation explanation = explanationFor(key);
    if (explanation.valid() && widget->toolTip().isEmpty()) {
        widget->setToolTip(explanation.title + QStringLiteral(" (details in the Explain panel)"));
    }
}

QString explainKeyOf(const QWidget* widget) {
    for (const QWidget* w = widget; w != nullptr; w = w->parentWidget()) {
        const QVariant key = w->property(kProperty);
        if (key.isValid() && !key.toString().isEmpty()) return key.toString();
    }
    return {};
}

}  // namespace distlab::ui
