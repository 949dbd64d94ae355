#include "panels/explanations_pipeline.hpp"

namespace distlab::ui {

void addPipelineExplanations(QHash<QString, Explanation>& t) {
    auto add = [&t](const char* key, const char* title, const char* body) {
        t.insert(QString::fromLatin1(key), Explanation{QString::fromUtf8(title), QString::fromUtf8(body)});
    };
    add("strategy.type.pipeline", "Pipeline",
        "<p>One copy of the model, <b>split</b> into stages of consecutive layers, one device each, for models too "
        "big for one device. Each step cuts the batch into micro-batches; a stage passes each micro-batch's "
        "activations to the next and its gradient back, so several devices work at once on different "
        "micro-batches. The time a device waits for its neighbours is the <b>bubble</b>; more micro-batches shrink "
        "it. All micro-batches' gradients are added before any update (a synchronous flush), so the weights equal "
        "one device's.</p>");
    add("strategy.type.model_parallel", "Model parallel (layer placement)",
        "<p>Each layer runs on the device you name, as TensorFlow's <code>with tf.device('/device:GPU:1')</code> "
        "places it: activations go forward and gradients back between the devices. Without micro-batches only one "
        "device works at a time (the others wait: a bubble of (p − 1)/p); with m micro-batches the devices "
        "overlap as in GPipe. The weights equal one device's.</p>");
    add("strategy.type.tensor_parallel", "Tensor parallel",
        "<p>Each dense layer's <b>weights</b> are split across the devices, as Megatron-LM splits a transformer's: "
        "every device computes the whole batch with its share. Layers pair up: the first is split by <b>columns</b> "
        "(each device computes some of its outputs and their activation, from the whole input), the second by "
        "<b>rows</b> (each device multiplies its slice of those outputs by its rows), and an <b>all-reduce</b> sums "
        "the devices' parts. Backward needs one more all-reduce a pair, of the first layer's input gradient. The "
        "weights equal one device's.</p>");
    add("strategy.tensor_parallel", "Tensor-parallel devices",
        "<p>tp: the devices cpu:0 … cpu:tp−1, each holding 1/tp of every split layer (a column-split layer's units must "
        "divide by tp). More devices hold less each, but every all-reduce still moves the whole batch's activations: "
        "tensor parallelism pays off inside a machine, where links are fast.</p>");
    add("strategy.data_parallel", "Data-parallel copies",
        "<p>dp: copies of the tensor-parallel devices, each computing its 1/dp of the batch, as mirrored replicas do. "
        "Device d of each copy holds the same share of the weights; after backward it sums its share of the gradient "
        "with device d of the other copies (an all-reduce among dp devices), so every copy applies the same update. "
        "dp × tp devices in all: a two-dimensional mesh.</p>"
        "<p>In a pipeline: copies of the whole pipeline, each running the schedule on its 1/dp of the batch (its "
        "micro-batches are cut from that share). After the flush, each device all-reduces its stages' gradients with "
        "the same device of the other copies, then all apply the same update: dp × p devices, copy c's stage device "
        "d being cpu:c·p+d.</p>");
    add("strategy.stages", "Stages",
        "<p>The devices of the pipeline, cpu:0 … cpu:p−1, each holding a stage of consecutive layers (v stages with "
        "the interleaved schedule). Layers with no stage of their own are balanced so that the costliest stage "
        "(multiply-accumulates) costs as little as it can: the slowest stage sets the pace.</p>");
    add("strategy.balance", "Balance stages",
        "<p>How the layers are cut into stages where no layer names its stage (the Model page's Stage column on "
        "Auto). <b>By multiply-accumulates</b>: each layer's weights times its inputs, the same on every machine. "
        "<b>By measured time</b>: each layer's forward and backward timed on this machine at the run's micro-batch "
        "size when the run starts, so costs the count misses (a GELU over wide outputs, a first layer that needs no "
        "input gradient, thin products held back by memory) are weighed too; the split may differ from run to run. "
        "Either way the costliest stage is made as cheap as it can be, and the weights are the same.</p>");
    add("strategy.micro_batches", "Micro-batches",
        "<p>How many pieces each step's global batch is cut into (equal ones: they must divide the batch). Each "
        "goes through every stage; the bubble is (p − 1)/(m + p − 1) of the step for GPipe and 1F1B, so more "
        "micro-batches mean less waiting, at the price of smaller products per pass.</p>");
    add("strategy.schedule", "Pipeline schedule",
        "<p><b>GPipe</b> runs every micro-batch's forward, then every backward: simple, but every device holds all m "
        "micro-batches' activations. <b>1F1B</b> (PipeDream-Flush) starts backwards as soon as it can, one forward "
        "then one backward: the same bubble, with at most p micro-batches in flight. <b>Interleaved 1F1B</b> gives each "
        "device v smaller chunks of the model, shrinking the bubble to (p − 1)/(v·m + p − 1) at the price of more "
        "hand-overs. <b>ZB-H1</b> (zero bubble) splits each backward into the input gradient B, which the stage before "
        "waits for, and the weight gradient W, which nothing waits for: W's fill the gaps, (p − 1)/(3m + p − 1) for "
        "equal passes, with 1F1B's memory.</p>");
    add("strategy.virtual_stages", "Virtual stages",
        "<p>Model chunks a device holds in the interleaved schedule: stage s runs on device s mod p, so the model "
        "goes round the devices v times. The ramp up and down is v times shorter.</p>");
    add("clock", "Clock",
        "<p>Which clock the timeline, throughput and bubbles are on. <b>Wall</b>: what the device threads did on this "
        "machine's cores; with more devices than cores they take turns, which the bubbles then include. "
        "<b>Virtual</b>: the devices compute one at a time, each pass timed alone, and the passes are placed by "
        "their dependencies: what the devices would do with a core each. The numbers trained are the same.</p>");
    add("model.device", "Device of a layer",
        "<p>Model parallel: the logical device this layer runs on. Consecutive layers on one device form a stage; "
        "between stages the activations go forward and the gradients back.</p>");
    add("view.schedule", "Pipeline schedule",
        "<p>The latest step as the devices ran it: a lane per device, each micro-batch's forward (F) and backward (B) "
        "as a cell in its colour, the hatched gaps each device's bubble. Beside it the bubble measured in that step "
        "and over the run, and the schedule's formula. <i>Hold this step</i> keeps it; <i>Next pass</i> walks "
        "through it in the order the passes began.</p>");
}

}  // namespace distlab::ui
