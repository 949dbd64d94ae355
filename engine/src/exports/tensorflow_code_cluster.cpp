// The TensorFlow code's clusters: MultiWorkerMirroredStrategy's workers (TensorFlow's ring is one of
// its collectives) and ParameterServerStrategy's workers and servers, all started on this machine
// so that the code runs as one command (docs/semantics.md §5.1, §6).
#include "exports/python_text.hpp"
#include "exports/tensorflow_code_parts.hpp"

namespace distlab::tensorflow_code {
namespace {

std::string freePorts() {
    return "\n\ndef free_ports(count):\n"
           "    \"\"\"Ports of this machine that are free now, one per task of the local cluster.\"\"\"\n"
           "    sockets = [socket.socket() for _ in range(count)]\n"
           "    for s in sockets:\n"
           "        s.bind((\"localhost\", 0))\n"
           "    ports = [s.getsockname()[1] for s in sockets]\n"
           "    for s in sockets:\n"
           "        s.close()\n"
           "    return ports\n";
}

/// CommunicationOptions' implementation for DistLab's cross_device_ops, with what differs.
std::string implementation(const StrategyConfig& strategy, std::string& notes) {
    switch (strategy.crossDeviceOps) {
        case CrossDeviceOps::Ring:
            return "RING";
        case CrossDeviceOps::Nccl:
            return "NCCL";
        default:
            notes += comment(std::string("cross_device_ops ") + configName(strategy.crossDeviceOps) +
                                 ": TensorFlow's collectives offer RING and NCCL only; AUTO lets TensorFlow pick.",
                             4);
            return "AUTO";
    }
}

std::string partitioner(const PartitionerConfig& partitioner) {
    const std::string base = "tf.distribute.experimental.partitioners.";
    switch (partitioner.kind) {
        case PartitionerConfig::Kind::None:
            return "None";
        case PartitionerConfig::Kind::Fixed:
            return base + "FixedShardsPartitioner(num_shards=" + std::to_string(partitioner.numShards) + ")";
        case PartitionerConfig::Kind::MinSize:
            return base + "MinSizePartitioner(\n            min_shard_bytes=" + std::to_string(partitioner.minShardBytes) +
                   ", max_shards=" + std::to_string(partitioner.maxShards) + ")";
        case PartitionerConfig::Kind::MaxSize:
            return base + "MaxSizePartitioner(\n            max_shard_bytes=" + std::to_string(partitioner.maxShardBytes) +
                   ", max_shards=" + std::to_string(partitioner.maxShards) + ")";
    }
    return "None";
}

std::string modeNote(const StrategyConfig& strategy) {
    if (strategy.mode == ParameterServerMode::Async)
        return comment(
            "mode async: the servers apply each worker's gradient as it arrives, with no barrier between "
            "workers, so a gradient may have been computed on weights others have updated since "
            "(staleness, about W - 1 updates with W equal workers; docs/semantics.md §6.3). That is "
            "what ParameterServerStrategy does.",
            4);
    const std::string aggregate =
        strategy.gradientsToAggregate > 0 ? std::to_string(strategy.gradientsToAggregate) : std::to_string(strategy.workers);
    return comment(
        "mode sync: TensorFlow 2's ParameterServerStrategy has no synchronous mode. TensorFlow 1 had "
        "one: tf.compat.v1.train.SyncReplicasOptimizer(optimizer, replicas_to_aggregate=" +
            aggregate + ", total_num_replicas=" + std::to_string(strategy.workers) +
            ") waits for that many fresh gradients, averages them and drops stale ones, as DistLab's sync "
            "mode does (docs/semantics.md §6.4), in a graph-mode MonitoredTrainingSession. In TensorFlow 2 "
            "synchronous data parallelism is MultiWorkerMirroredStrategy; this code keeps the parameter "
            "servers, so it trains asynchronously.",
        4);
}

std::string speedNote(const StrategyConfig& strategy) {
    if (strategy.workerSpeed.empty()) return "";
    std::string speeds;
    for (const double speed : strategy.workerSpeed) speeds += (speeds.empty() ? "" : ", ") + pythonFloat(speed);
    return comment("worker_speed [" + speeds +
                       "]: DistLab slows workers down to show stragglers (docs/semantics.md §6.6); TensorFlow has no "
                       "such setting, a real cluster brings its own slow machines.",
                   4);
}

}  // namespace

std::string multiWorkerPart(Plan& plan) {
    const StrategyConfig& strategy = plan.config.strategy;
    plan.imports.insert({"json", "os", "socket", "subprocess", "sys"});
    std::string out;
    if (strategy.type == StrategyKind::Mirrored)
        out += comment(
            "cross_device_ops ring: TensorFlow's ring all-reduce is a collective of "
            "MultiWorkerMirroredStrategy (CommunicationImplementation.RING); MirroredStrategy's cross-device "
            "ops have no ring. So each of DistLab's " +
            std::to_string(plan.replicas) +
            " replicas is a worker process here, all on this machine, started by this script "
            "(launch_workers) with a TF_CONFIG naming the cluster and the worker's index.");
    else
        out += comment(
            "multi_worker_mirrored: synchronous replicas in worker processes, here all on this machine, "
            "started by this script (launch_workers) with a TF_CONFIG naming the cluster: one worker per "
            "replica of DistLab's run (" +
            std::to_string(plan.replicas) +
            "), since TensorFlow's workers on CPU have one replica each. DistLab trains it with "
            "distlab-worker, one process per task of its cluster (docs/cluster.md).");
    out += "WORKERS = " + std::to_string(plan.replicas) + "\n";
    if (strategy.usesGpus()) {
        std::string gpus;
        for (const DeviceName& device : strategy.devices)
            gpus += (gpus.empty() ? "" : ", ") + std::to_string(device.index / strategy.gpu.logicalPerPhysical);
        out += "GPUS = [" + gpus + "]  # worker i's physical GPU (strategy.devices, strategy.gpu)\n";
    }
    out += freePorts();
    out +=
        "\n\ndef launch_workers():\n"
        "    \"\"\"Runs this script once per worker, each with its TF_CONFIG; returns the worst exit status.\"\"\"\n"
        "    cluster = {\"worker\": [f\"localhost:{port}\" for port in free_ports(WORKERS)]}\n"
        "    workers = []\n"
        "    for index in range(WORKERS):\n"
        "        tf_config = {\"cluster\": cluster, \"task\": {\"type\": \"worker\", \"index\": index}}\n"
        "        environment = dict(os.environ, TF_CONFIG=json.dumps(tf_config))\n";
    if (strategy.usesGpus()) out += "        environment[\"CUDA_VISIBLE_DEVICES\"] = str(GPUS[index])\n";
    out +=
        "        workers.append(subprocess.Popen([sys.executable, os.path.abspath(__file__)], env=environment))\n"
        "    return max(worker.wait() for worker in workers)\n";

    std::string notes;
    const std::string chosen = implementation(strategy, notes);
    out += "\n\ndef make_strategy():\n" + notes;
    if (strategy.numPacks > 1)
        out += comment("num_packs " + std::to_string(strategy.numPacks) +
                           ": TensorFlow's collectives pack by bytes (bytes_per_pack), not by count; a pack of "
                           "(gradient bytes / num_packs) gives DistLab's packs.",
                       4);
    out += "    options = tf.distribute.experimental.CommunicationOptions(\n";
    if (strategy.bytesPerPack > 0)
        out += "        bytes_per_pack=" + std::to_string(strategy.bytesPerPack) + ",  # strategy.bytes_per_pack\n";
    out += "        implementation=tf.distribute.experimental.CommunicationImplementation." + chosen +
           ")\n"
           "    return tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)\n";
    return out;
}

std::string parameterServerPart(Plan& plan) {
    const StrategyConfig& strategy = plan.config.strategy;
    plan.imports.insert({"socket"});
    std::string out;
    out += comment("parameter_server: " + std::to_string(strategy.workers) + " workers and " + std::to_string(strategy.parameterServers) +
                   " parameter servers. TensorFlow 2 trains them from a coordinator (this process) that schedules "
                   "steps on the workers through a ClusterCoordinator; the variables live on the servers, placed "
                   "round-robin (docs/semantics.md §6.2, §6.5). Every task here is a tf.distribute.Server in this "
                   "process, as TensorFlow's parameter-server tutorial does to try it on one machine; on a cluster "
                   "each runs on its own machine with this cluster spec.");
    out += "WORKERS = " + std::to_string(strategy.workers) + "\n";
    out += "PARAMETER_SERVERS = " + std::to_string(strategy.parameterServers) + "\n";
    out += "SERVERS = []  # the in-process servers, alive as long as the program\n";
    out += freePorts();
    out +=
        "\n\ndef start_local_cluster():\n"
        "    \"\"\"Starts the workers' and the servers' tf.distribute.Servers; returns the coordinator's resolver.\"\"\"\n"
        "    ports = free_ports(WORKERS + PARAMETER_SERVERS)\n"
        "    spec = tf.train.ClusterSpec({\n"
        "        \"worker\": [f\"localhost:{port}\" for port in ports[:WORKERS]],\n"
        "        \"ps\": [f\"localhost:{port}\" for port in ports[WORKERS:]],\n"
        "    })\n"
        "    for job, count in ((\"worker\", WORKERS), (\"ps\", PARAMETER_SERVERS)):\n"
        "        for index in range(count):\n"
        "            SERVERS.append(tf.distribute.Server(spec, job_name=job, task_index=index, protocol=\"grpc\", start=True))\n"
        "    return tf.distribute.cluster_resolver.SimpleClusterResolver(spec, rpc_layer=\"grpc\")\n";
    out += "\n\ndef make_strategy():\n" + modeNote(strategy) + speedNote(strategy);
    if (strategy.replicasPerWorker > 1)
        out += comment("replicas_per_worker " + std::to_string(strategy.replicasPerWorker) +
                           ": ParameterServerStrategy runs a worker's local GPUs as synchronous replicas (an all-reduce "
                           "inside the worker, DistLab's cross_device_ops " +
                           configName(strategy.crossDeviceOps) +
                           "); the in-process workers here share one machine's devices, so each has one replica and "
                           "computes on its whole batch of G.",
                       4);
    if (strategy.partitioner.kind == PartitionerConfig::Kind::None)
        out += comment("No partitioner: every variable is one shard.", 4);
    else
        out += comment(
            "strategy.partitioner: TensorFlow's partitioners split along the first axis as DistLab's do "
            "(docs/semantics.md §6.5).",
            4);
    out +=
        "    return tf.distribute.experimental.ParameterServerStrategy(\n"
        "        start_local_cluster(),\n"
        "        variable_partitioner=" +
        partitioner(strategy.partitioner) + ")\n";
    return out;
}

}  // namespace distlab::tensorflow_code
