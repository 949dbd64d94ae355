// The TensorFlow code's training loop: a custom loop with strategy.run (the variables made under
// strategy.scope() with their synchronization and aggregation, the loss scaled by the global batch,
// gradient accumulation over micro-batches, one apply_gradients per update), or for parameter servers
// steps scheduled by a ClusterCoordinator (docs/semantics.md §4 and §6).
#include "exports/python_text.hpp"
#include "exports/tensorflow_code_parts.hpp"

namespace distlab::tensorflow_code {
namespace {

/// What the variables made under strategy.scope() are under this strategy.
std::string variablesNote(const Plan& plan) {
    switch (plan.config.strategy.type) {
        case StrategyKind::OneDevice:
        case StrategyKind::ModelParallel:
        case StrategyKind::Pipeline:
        case StrategyKind::TensorParallel:
            return comment(
                "Under one device a variable is plain: synchronization and aggregation change nothing "
                "(docs/semantics.md §1); they are spelled out as a mirrored run needs them.",
                8);
        case StrategyKind::CentralStorage:
            return comment(
                "Under central storage every variable is one copy on the parameter device, whatever its "
                "synchronization: an update in replica context is reduced with its aggregation and applied "
                "once (docs/semantics.md §6.7).",
                8);
        case StrategyKind::ParameterServer:
            return comment(
                "The variables live on the parameter servers, sharded by the partitioner; an update in "
                "replica context is reduced over the worker's replicas and applied once "
                "(docs/semantics.md §6.7).",
                8);
        default:
            return comment(
                "Variables made here are mirrored: one copy per replica. The weights and the optimizer's "
                "slots are ON_WRITE (an update in replica context is reduced and applied to every copy); "
                "the optimizer's step counter `iterations` is ON_WRITE with aggregation ONLY_FIRST_REPLICA "
                "(replica 0's increment applied to every copy; docs/semantics.md §1, §2).",
                8);
    }
}

std::string samplesSeen() {
    return comment(
               "The samples trained on: ON_WRITE with aggregation SUM adds up the replicas' increments and "
               "applies the total to every copy (docs/semantics.md §2). Each replica adds its own tensor (its "
               "batch's size): one Python constant would be the same value on every replica, which SUM refuses.",
               8) +
           "        samples_seen = tf.Variable(\n"
           "            0, dtype=tf.int64, trainable=False,\n"
           "            synchronization=tf.VariableSynchronization.ON_WRITE, aggregation=tf.VariableAggregation.SUM)\n";
}

std::string lossSum() {
    return comment(
               "The step loss as DistLab reports it: each replica adds its shard's loss sum to its own copy "
               "(ON_READ: no communication in the step) and a read outside strategy.run sums the copies "
               "(aggregation SUM; docs/semantics.md §3), as Keras metrics do.",
               8) +
           "        loss_sum = tf.Variable(\n"
           "            0.0, trainable=False,\n"
           "            synchronization=tf.VariableSynchronization.ON_READ, aggregation=tf.VariableAggregation.SUM)\n";
}

/// gradients_of(x, y): one micro-batch's loss sum and gradients, the loss scaled by 1 / G.
std::string gradientsOf(const Plan& plan) {
    const bool scaled = plan.config.precision == Precision::MixedFloat16;
    std::string out =
        "\n    def gradients_of(x, y):\n"
        "        \"\"\"A micro-batch's loss sum and the gradients of that sum / G. compute_average_loss divides by\n"
        "        the global batch G, not the replica's share, so the replicas' gradients add up to the gradient of\n"
        "        the mean loss over G (docs/semantics.md §4.1).\"\"\"\n";
    // The forward pass and the scaled loss, inside the tape (add_n) or before tf.gradients (tree).
    const auto body = [scaled](const std::string& pad) {
        return pad + "per_example = per_example_loss(y, model(x, training=True))\n" + pad +
               "loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH_SIZE)\n" +
               (scaled ? pad + "loss = optimizer.get_scaled_loss(loss)  # mixed_float16: scaled against underflow\n" : "");
    };
    const std::string unscale = scaled ? "        gradients = optimizer.get_unscaled_gradients(gradients)\n" : "";
    if (plan.config.model.aggregationMethod == AggregationMethod::AddN) {
        out += "        with tf.GradientTape() as tape:  # sums a tensor's gradient terms with add_n (aggregation_method add_n)\n" +
               body("            ") + "        gradients = tape.gradient(loss, model.trainable_variables)\n";
    } else {
        out += comment(
                   "aggregation_method tree: a residual block's input gets its gradient terms added one at a "
                   "time as they appear, not held for one add_n (docs/semantics.md §4.4). GradientTape always "
                   "uses add_n; tf.gradients takes the method, in graph mode (this runs inside tf.function).",
                   8) +
               body("        ") +
               "        gradients = tf.gradients(\n"
               "            loss, model.trainable_variables, aggregation_method=tf.AggregationMethod.EXPERIMENTAL_TREE)\n";
    }
    return out + unscale + "        return tf.reduce_sum(per_example), gradients\n";
}

/// The replica's gradient for one update: one micro-batch, or k accumulated.
std::string accumulate(const Plan& plan) {
    if (plan.config.strategy.gradientAccumulationSteps <= 1) return "        loss, gradients = gradients_of(x, y)\n";
    return comment(
               "Gradient accumulation: the replica's shard in k contiguous micro-batches; their gradients (each "
               "already scaled by 1 / G) are summed here and reduced once, after the last: one update of the "
               "whole global batch G, holding G / (N k) samples at a time (docs/semantics.md §4.3).",
               8) +
           "        micro_x, micro_y = tf.split(x, ACCUMULATION_STEPS), tf.split(y, ACCUMULATION_STEPS)\n"
           "        loss, gradients = gradients_of(micro_x[0], micro_y[0])\n"
           "        for m in range(1, ACCUMULATION_STEPS):\n"
           "            micro_loss, micro_gradients = gradients_of(micro_x[m], micro_y[m])\n"
           "            loss += micro_loss\n"
           "            gradients = [total + gradient for total, gradient in zip(gradients, micro_gradients)]\n";
}

std::string synchronousLoop(const Plan& plan) {
    const bool multiWorker = plan.runtime == Plan::Runtime::MultiWorker;
    std::string out = "def train():\n    strategy = make_strategy()\n";
    if (multiWorker) out += "    chief = strategy.cluster_resolver.task_id == 0  # worker 0 prints\n";
    out += "    x, y = load_training_set()\n    with strategy.scope():\n" + variablesNote(plan) +
           "        model = build_model(x.shape[1])\n"
           "        load_distlab_weights(model)\n"
           "        optimizer = make_optimizer()\n" +
           lossSum() + samplesSeen();
    if (multiWorker)
        out += comment(
                   "Each worker takes its share of every global batch (auto-sharding by DATA: in-memory data has "
                   "no files to split); DistLab gives replica r the r-th contiguous G / N of it (docs/semantics.md §9).",
                   4) +
               "    options = tf.data.Options()\n"
               "    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA\n"
               "    dataset = strategy.experimental_distribute_dataset(\n"
               "        make_dataset(x, y, GLOBAL_BATCH_SIZE).with_options(options))\n";
    else
        out +=
            "    # Every global batch of G is split into per-replica batches of G / N (docs/semantics.md §9).\n"
            "    dataset = strategy.experimental_distribute_dataset(make_dataset(x, y, GLOBAL_BATCH_SIZE))\n";
    out += gradientsOf(plan);
    out +=
        "\n    def replica_step(x, y):\n"
        "        \"\"\"One replica's part of an update, in replica context.\"\"\"\n" +
        accumulate(plan) +
        comment(
            "In replica context apply_gradients all-reduces the gradients (SUM, with the strategy's "
            "cross-device ops) and applies the sum to every copy, once per update (docs/semantics.md §4.2).",
            8) +
        "        optimizer.apply_gradients(zip(gradients, model.trainable_variables))\n"
        "        loss_sum.assign_add(loss)\n"
        "        samples_seen.assign_add(tf.shape(x, out_type=tf.int64)[0])\n"
        "\n    @tf.function\n"
        "    def train_step(iterator):\n"
        "        strategy.run(replica_step, args=next(iterator))\n"
        "\n    iterator = iter(dataset)\n"
        "    reported = 0\n"
        "    for step in range(STEPS):\n"
        "        train_step(iterator)\n"
        "        if (step + 1) % REPORT_EVERY == 0 or step + 1 == STEPS:\n"
        "            mean_loss = loss_sum.numpy() / (GLOBAL_BATCH_SIZE * (step + 1 - reported))  # the copies' sum\n"
        "            loss_sum.assign(0.0)  # cross-replica: every copy 0 / N\n"
        "            reported = step + 1\n";
    const std::string print = "print(f\"step {step + 1}/{STEPS} loss {mean_loss:.6f} samples {samples_seen.numpy()}\", flush=True)\n";
    out += multiWorker ? "            if chief:\n                " + print : "            " + print;
    return out;
}

std::string parameterServerLoop(const Plan& plan) {
    std::string out =
        "def train():\n"
        "    strategy = make_strategy()\n"
        "    coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)\n"
        "    x, y = load_training_set()\n"
        "    with strategy.scope():\n" +
        variablesNote(plan) +
        "        model = build_model(x.shape[1])\n"
        "        load_distlab_weights(model)\n"
        "        optimizer = make_optimizer()\n" +
        samplesSeen() +
        "\n    def dataset_fn(input_context):\n"
        "        \"\"\"A worker's own batches: each computes on a whole batch of G (docs/semantics.md §6.2).\"\"\"\n"
        "        return make_dataset(x, y, GLOBAL_BATCH_SIZE, input_context)\n"
        "\n    iterator = iter(coordinator.create_per_worker_dataset(dataset_fn))\n";
    out += gradientsOf(plan);
    out +=
        "\n    def replica_step(x, y):\n"
        "        loss, gradients = gradients_of(x, y)\n"
        "        # The servers apply the worker's gradient at once, whatever the others do (make_strategy).\n"
        "        optimizer.apply_gradients(zip(gradients, model.trainable_variables))\n"
        "        samples_seen.assign_add(tf.shape(x, out_type=tf.int64)[0])\n"
        "        return loss\n"
        "\n    @tf.function\n"
        "    def train_step(iterator):\n"
        "        losses = strategy.run(replica_step, args=next(iterator))\n"
        "        return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)\n"
        "\n    for step in range(STEPS):\n"
        "        # schedule returns at once: the coordinator hands the step to the next free worker.\n"
        "        result = coordinator.schedule(train_step, args=(iterator,))\n"
        "        if (step + 1) % REPORT_EVERY == 0 or step + 1 == STEPS:\n"
        "            mean_loss = result.fetch() / GLOBAL_BATCH_SIZE  # waits for that step\n"
        "            print(f\"step {step + 1}/{STEPS} loss {mean_loss:.6f}\", flush=True)\n"
        "    coordinator.join()\n"
        "    print(f\"samples {samples_seen.numpy()}\", flush=True)\n";
    return out;
}

}  // namespace

std::string trainingSection(Plan& plan) {
    return sectionTitle("training (docs/semantics.md §4)") +
           (plan.runtime == Plan::Runtime::ParameterServer ? parameterServerLoop(plan) : synchronousLoop(plan));
}

}  // namespace distlab::tensorflow_code
