#include "panels/explanations_parameter_server.hpp"

namespace distlab::ui {

void addParameterServerExplanations(QHash<QString, Explanation>& t) {
    auto add = [&t](const char* key, const char* title, const char* body) {
        t.insert(QString::fromLatin1(key), Explanation{QString::fromUtf8(title), QString::fromUtf8(body)});
    };
    add("strategy.type.central_storage", "Central storage",
        "<p>One copy of every variable lives on one device; every replica reads it at the start of a step, "
        "computes its gradient on its shard, and the summed gradient is applied <b>once</b>, to that one copy. "
        "Use it when the variables are too large to mirror on every device; the price is that each replica "
        "reads the whole model every step.</p><p>An update made in replica context is aggregated and applied "
        "once (aggregation <i>none</i> is rejected there): the rules of the variable lab.</p>");
    add("strategy.type.parameter_server", "Parameter servers (asynchronous data parallelism)",
        "<p>Workers each read the current parameters from the <b>parameter servers</b>, compute a gradient on "
        "their own batch and push it; the servers apply every gradient as it arrives, without waiting for the "
        "other workers. Use it when workers differ in speed or may fail: nobody waits for the slowest one. The "
        "price is <b>staleness</b>: a gradient was computed on parameters that others have updated since.</p>"
        "<p>With N equal workers about N − 1 updates land between a worker's read and its push. The "
        "synchronous mode waits for a set number of gradients, averages them and drops stale ones.</p>");
    add("strategy.workers", "Workers",
        "<p>How many workers compute gradients (each a thread with its own copy of the model). More workers push "
        "more updates per second, and each update is staler: about one more update in between per worker.</p>");
    add("strategy.parameter_servers", "Parameter servers",
        "<p>How many servers hold the variables. Variables (or their shards) are placed on the servers "
        "round-robin in creation order, so the work of applying updates is spread over them. More servers help "
        "when applying updates is the bottleneck; with a small model one is enough.</p>");
    add("strategy.mode.async", "Asynchronous updates",
        "<p>Every gradient is applied the moment it arrives: no worker ever waits, a straggler only contributes "
        "less often. Updates are stale (computed on old parameters). Switches live.</p>");
    add("strategy.mode.sync", "Synchronous updates",
        "<p>The servers wait for a set number of fresh gradients, average them and apply them once; gradients "
        "computed on parameters that have moved on are dropped. No staleness, the same maths as mirrored with "
        "every gradient; the price is waiting for the slowest of the workers waited for. Switches live.</p>");
    add("strategy.gradients_to_aggregate", "Gradients to aggregate",
        "<p>Synchronous mode: how many fresh gradients the servers average per update (all: every live worker). "
        "Fewer than all means the fastest workers decide each update and a straggler's gradient is dropped as "
        "stale, so nobody waits for it; each update then averages fewer samples.</p>");
    add("strategy.partitioner", "Partitioner",
        "<p>Splits large variables along their first axis into shards, which go to different servers, so one big "
        "variable does not load one server. <b>fixed</b>: a given number of shards; <b>min_size</b>: as many "
        "shards as keep each at least that many bytes (up to max shards); <b>max_size</b>: the fewest shards "
        "that keep each at most that many bytes (up to max shards). More shards spread the work; each costs a "
        "message per update.</p><p>k = min(p, rows) shards; the first rows % k shards get one extra row (13 "
        "rows over 5 shards: 3, 3, 3, 2, 2).</p>");
    add("strategy.worker_speed", "Worker speed",
        "<p>A straggler: a worker at 0.5 takes twice as long per gradient (it sleeps the difference). In "
        "asynchronous mode the others carry on and the slow worker simply pushes less often, with staler "
        "gradients; in synchronous mode everybody waits for it. Applies live.</p>");
    add("view.parameter_servers", "Parameter servers",
        "<p>The workers (bottom) and the parameter servers (top) with the variable shards each server holds. A "
        "dot runs up an edge when the servers apply a worker's gradient (a push) and back down as the worker "
        "reads the new parameters (a pull). Each worker shows its gradient count and speed; paused and killed "
        "workers are grey.</p><p>Slow a worker, pause it or kill it while training: the others go on, and a "
        "killed worker's unfinished batch is redone by another. Losing a server stops the run with an error, as "
        "a real cluster would; the app keeps a checkpoint every few seconds while the run trains, so <i>Resume "
        "from checkpoint</i> goes on from the update it names (or reset).</p>");
    add("view.staleness", "Staleness",
        "<p>For every applied update: how many other updates were applied between the worker's read of the "
        "parameters and the apply of its gradient. The dashed line is the theory for N live workers: N − 1 on "
        "average, because while one worker computes, each of the others pushes about once. (Unequal speeds do "
        "not change the mean: a slow worker pushes rarely, but its rare gradients are very stale.)</p>");
    add("view.comparison", "Mirrored vs asynchronous vs synchronous",
        "<p>The same model and data trained three ways at once: mirrored on N replicas, parameter servers with N "
        "asynchronous workers, and with N synchronous workers. Every update consumes the same global batch; "
        "loss against steps shows what one update buys, loss against wall time what the waiting costs.</p>");
}

}  // namespace distlab::ui
