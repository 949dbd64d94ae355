#include "panels/explanations_cluster.hpp"

namespace distlab::ui {

void addClusterExplanations(QHash<QString, Explanation>& t) {
    auto add = [&t](const char* key, const char* title, const char* body) {
        t.insert(QString::fromLatin1(key), Explanation{QString::fromUtf8(title), QString::fromUtf8(body)});
    };
    add("strategy.type.multi_worker_mirrored", "Multi-worker mirrored (processes)",
        "<p>Mirrored across <b>processes</b>: each worker is a process of its own (here a <code>distlab-worker</code> "
        "the app starts on Play; on a real cluster, one per host) with its local replicas on threads. Every step "
        "the gradients are summed in three hops, as TensorFlow's MultiWorkerMirroredStrategy does: among a "
        "worker's replicas in memory, across the workers over the network (Gloo, TCP), and broadcast back. Every "
        "replica then applies the same update, so the weights equal Mirrored's on as many replicas.</p>"
        "<p>The price is the network hop and what processes bring: the tasks must meet (the rendezvous), and a lost "
        "task stops the others. Use it when one machine is not enough.</p>");
    add("cluster.workers", "Worker processes",
        "<p>How many worker tasks the cluster has: each a process with the replicas per worker below, so the run "
        "has workers × replicas replicas, and the global batch is split among all of them. Worker 0 (or the chief) "
        "is the coordinator. More workers add compute and one more party to every all-reduce.</p>");
    add("strategy.timeout_seconds", "Timeout",
        "<p>How long a task waits for a peer: to come to the rendezvous, and inside every collective. A task that "
        "is killed is noticed at once (its connections close); one that stalls (a hung host, SIGSTOP) is waited "
        "for this long, then every other task stops with exit code 3 and a message naming it. Too short, and a "
        "slow start or a long evaluation looks like a failure; too long, and a hung cluster waits.</p>");
    add("strategy.communication", "Between workers: auto or ring",
        "<p>How the workers' partial sums cross between the processes, TensorFlow's "
        "<code>CommunicationImplementation</code>. <b>Ring</b> is Gloo's ring all-reduce: each worker sends "
        "2(N−1)/N of the gradient in 2(N−1) steps, each waiting on its neighbour. <b>Auto</b> (the default) sends "
        "the gradient straight to the other worker when there are two (the same bytes as the ring, in one message "
        "each way) and to every other worker for buffers up to 64 KiB (a few round trips cost more there than the "
        "copies), and takes the ring above. Both sum in an order fixed by rank, so every worker ends with the same "
        "bits, and the two end within float rounding of each other.</p>");
    add("cluster.tf_config", "The cluster (TF_CONFIG)",
        "<p>Which tasks there are and where they listen, in TensorFlow's <code>TF_CONFIG</code> shape: "
        "<code>{\"cluster\": {\"worker\": [\"localhost:12345\", \"localhost:12346\"]}, \"task\": {\"type\": "
        "\"worker\", \"index\": 0}}</code>. <code>cluster</code> lists the addresses by task type (chief, worker, "
        "ps); <code>task</code> says which of them this process is. <code>distlab-worker</code> reads it from the "
        "environment as TensorFlow does, or takes the config's <code>cluster</code> with <code>--task "
        "worker:1</code>.</p><p>The app writes a cluster of loopback addresses and starts every task whose address "
        "is this machine's; a task at another host's address waits for you to start it there with the command the "
        "Tasks view shows.</p>");
    add("cluster.chief", "The chief (coordinator)",
        "<p>One task coordinates: the <b>chief</b> when the cluster has one (it also trains, as worker 0 of the "
        "collective), else worker 0. It serves the rendezvous store, and it alone writes the weights and the "
        "backups, so two tasks never write one file. If it is lost the run stops, as any lost task stops a "
        "synchronous run.</p>");
    add("cluster.store", "The rendezvous store",
        "<p>Before the first step every task must learn where the others listen. Each one writes its address under "
        "its own key in a small key-value <b>store</b> and reads everybody else's (Gloo's rendezvous); then they "
        "connect to each other directly. The coordinator serves the store (as PyTorch's TCPStore is served by rank "
        "0), or a Redis server does (<code>--redis</code>).</p><p>Every task presents the run's random token and "
        "the hash of its config: a task of another run, or with another config, is refused with a message naming "
        "what differs.</p>");
    add("cluster.backups", "Backups (BackupAndRestore)",
        "<p>A lost task stops a synchronous run: what survives is the last <b>backup</b>. With <code>--checkpoint "
        "backup.ckpt --checkpoint-every 50</code> the coordinator writes one every 50 updates, atomically (a crash "
        "mid-write leaves the one before). Starting every task again with <code>--resume backup.ckpt</code> goes on "
        "from its update and ends with the same weights, bit for bit, as a run never interrupted: TensorFlow's "
        "BackupAndRestore.</p>");
    add("view.tasks", "Tasks",
        "<p>The cluster's tasks, one row each: its address, its process, what it is doing (starting: meeting the "
        "others; training; finished; failed; lost) and how many steps it has reported. Every task streams its steps "
        "to the app, which joins them into one run: every view draws one lane per process and replica.</p>"
        "<p>A task that fails says why (the last error line it printed); the others stop within the timeout, "
        "naming the task they lost. A task at another host's address shows the command that starts it there.</p>");
}

}  // namespace distlab::ui
