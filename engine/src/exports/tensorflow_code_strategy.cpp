// The TensorFlow code's strategy: the logical devices DistLab's replicas run on, the tf.distribute
// strategy with its cross-device ops, and for multi-worker and parameter-server runs the cluster
// (docs/semantics.md §5, §6). Where TensorFlow does a thing differently from DistLab, the code says how.
#include <algorithm>

#include "exports/python_text.hpp"
#include "exports/tensorflow_code_parts.hpp"

namespace distlab::tensorflow_code {
namespace {

std::string deviceName(const DeviceName& device) {
    return std::string(device.kind == DeviceName::Kind::Gpu ? "/gpu:" : "/cpu:") + std::to_string(device.index);
}

std::vector<DeviceName> devicesOf(const StrategyConfig& strategy) {
    return strategy.devices.empty() ? std::vector<DeviceName>{DeviceName{}} : strategy.devices;
}

/// DEVICES and configure_devices(): DistLab's devices are logical devices, TensorFlow's too
/// (tf.config.set_logical_device_configuration), so the code carves the same ones.
std::string devicesPart(const Plan& plan) {
    const StrategyConfig& strategy = plan.config.strategy;
    std::string out;
    std::string list;
    std::int64_t highest = 0;
    for (const DeviceName& device : devicesOf(strategy)) {
        list += (list.empty() ? "" : ", ") + pythonString(deviceName(device));
        highest = std::max<std::int64_t>(highest, device.index);
    }
    const bool gpus = strategy.usesGpus();
    out += "DEVICES = [" + list + "]  # one replica each\n";
    out += "\n\ndef configure_devices():\n";
    if (gpus) {
        const std::int64_t perPhysical = strategy.gpu.logicalPerPhysical;
        out += "    \"\"\"DistLab's gpu:K is logical GPU K % " + std::to_string(perPhysical) + " of physical GPU K // " +
               std::to_string(perPhysical) + " (strategy.gpu);\n    TensorFlow carves GPUs the same way.\"\"\"\n";
        if (perPhysical == 1 && strategy.gpu.memoryLimitMb == 0) {
            out += "    pass  # one logical GPU per physical GPU and no memory limit: TensorFlow's default\n";
            return out;
        }
        std::string limit = std::to_string(strategy.gpu.memoryLimitMb);
        if (strategy.gpu.memoryLimitMb == 0) {
            out += comment(
                "memory_limit_mb 0 lets DistLab's logical GPUs of one GPU share its memory; TensorFlow "
                "needs a limit to split a GPU, so 1024 MiB each is this code's choice.",
                4);
            limit = "1024";
        }
        out +=
            "    gpus = tf.config.list_physical_devices(\"GPU\")\n"
            "    for gpu in gpus[:" +
            std::to_string(highest / perPhysical + 1) +
            "]:\n"
            "        tf.config.set_logical_device_configuration(\n"
            "            gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=" +
            limit + ")] * " + std::to_string(perPhysical) + ")\n";
        return out;
    }
    out += "    \"\"\"Splits this machine's CPU into " + std::to_string(highest + 1) +
           " logical devices, as DistLab's cpu:K are; must run before TensorFlow\n"
           "    initialises its devices.\"\"\"\n";
    if (highest == 0) {
        out += "    pass  # cpu:0 alone is TensorFlow's default CPU device\n";
        return out;
    }
    out +=
        "    cpu = tf.config.list_physical_devices(\"CPU\")[0]\n"
        "    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * " +
        std::to_string(highest + 1) + ")\n";
    return out;
}

/// What TensorFlow's packing does with DistLab's num_packs / bytes_per_pack for `ops`.
std::string packingNote(const StrategyConfig& strategy, bool takesNumPacks) {
    if (strategy.bytesPerPack > 0)
        return comment("bytes_per_pack " + std::to_string(strategy.bytesPerPack) +
                           ": these cross-device ops pack by count (num_packs) only; TensorFlow's byte packing is "
                           "CommunicationOptions(bytes_per_pack=...) of the collective (multi-worker) strategies.",
                       4);
    if (!takesNumPacks && strategy.numPacks > 1)
        return comment(
            "num_packs " + std::to_string(strategy.numPacks) + ": ReductionToOneDevice reduces each gradient on its own and does not pack.",
            4);
    return "";
}

std::string mirrored(const Plan& plan) {
    const StrategyConfig& strategy = plan.config.strategy;
    const std::string packs = std::to_string(strategy.bytesPerPack > 0 ? 1 : strategy.numPacks);
    std::string out, ops;
    switch (strategy.crossDeviceOps) {
        case CrossDeviceOps::ReductionToOneDevice:
            out += comment(
                "cross_device_ops reduction_to_one_device: every replica's gradient is copied to "
                "DEVICES[0], added there in one tf.math.add_n (every term held at once, as DistLab's "
                "device 0 does) and the sum broadcast back (docs/semantics.md §5.1).",
                4);
            out += packingNote(strategy, false);
            ops = "tf.distribute.ReductionToOneDevice(reduce_to_device=DEVICES[0], accumulation_fn=tf.math.add_n)";
            break;
        case CrossDeviceOps::Tree:
            out += comment(
                "cross_device_ops tree: TensorFlow's cross-device ops have no tree all-reduce. The "
                "nearest is ReductionToOneDevice adding in DistLab's tree order (binary_tree_sum). What "
                "differs: TensorFlow copies every gradient to DEVICES[0] and adds them there, where "
                "DistLab's tree passes partial sums up level by level (each replica sends once, to its "
                "parent) and copies the result down the same tree: the same sum, other transfers "
                "(docs/semantics.md §5.1).",
                4);
            out += packingNote(strategy, false);
            ops = "tf.distribute.ReductionToOneDevice(reduce_to_device=DEVICES[0], accumulation_fn=binary_tree_sum)";
            break;
        case CrossDeviceOps::HierarchicalCopy:
            out += comment(
                "cross_device_ops hierarchical_copy: TensorFlow's HierarchicalCopyAllReduce was built for "
                "the 8 GPUs of a DGX-1 (two groups of four, summed on a lead each); DistLab's splits any N "
                "replicas into two halves the same way and rotates the leads per pack "
                "(docs/semantics.md §5.1).",
                4);
            out += packingNote(strategy, true);
            ops = "tf.distribute.HierarchicalCopyAllReduce(num_packs=" + packs + ")";
            break;
        case CrossDeviceOps::Nccl:
            if (!strategy.usesGpus())
                out += comment(
                    "cross_device_ops nccl: NCCL all-reduces between GPUs only. On these CPU devices "
                    "DistLab runs its ring instead; TensorFlow would refuse NcclAllReduce here.",
                    4);
            out += packingNote(strategy, true);
            ops = "tf.distribute.NcclAllReduce(num_packs=" + packs + ")";
            break;
        case CrossDeviceOps::Ring:
            // One replica: nothing to reduce, so the ring is MirroredStrategy's own default.
            out += comment("One replica: no reduction at all, whatever cross_device_ops says.", 4);
            return out + "    return tf.distribute.MirroredStrategy(devices=DEVICES)\n";
    }
    return out + "    return tf.distribute.MirroredStrategy(\n        devices=DEVICES,\n        cross_device_ops=" + ops + ")\n";
}

std::string centralStorage(const Plan& plan) {
    const StrategyConfig& strategy = plan.config.strategy;
    std::string out = comment(
        "central_storage: one copy of the variables on the parameter device, replicas "
        "compute on their shards and the summed gradient is applied once "
        "(docs/semantics.md §6.1).",
        4);
    out += comment(std::string("cross_device_ops ") + configName(strategy.crossDeviceOps) +
                       ": CentralStorageStrategy always reduces onto its parameter device and takes no cross-device "
                       "ops; DistLab all-reduces among the replicas, then replica 0 applies and broadcasts.",
                   4);
    return out +
           "    return tf.distribute.experimental.CentralStorageStrategy(\n"
           "        compute_devices=DEVICES, parameter_device=DEVICES[0])\n";
}

std::string oneDevice(const Plan& plan) {
    std::string out;
    const StrategyKind type = plan.config.strategy.type;
    if (type == StrategyKind::ModelParallel || type == StrategyKind::Pipeline || type == StrategyKind::TensorParallel)
        out += comment(std::string("strategy ") + configName(type) +
                           ": tf.distribute has no model-, pipeline- or tensor-parallel strategy (TensorFlow places layers "
                           "with tf.device, or splits a model or its weights with DTensor layouts, tf.experimental.dtensor). "
                           "DistLab's split applies the update one device computes for the whole batch "
                           "(docs/semantics.md §12), so this code trains on one device.",
                       4);
    return out + "    return tf.distribute.OneDeviceStrategy(DEVICES[0])\n";
}

std::string treeSum() {
    return "\n\ndef binary_tree_sum(values):\n"
           "    \"\"\"DistLab's tree order as ReductionToOneDevice's accumulation_fn: replica r's children are 2r + 1\n"
           "    and 2r + 2; from the last parent up, each adds its children's sums to its own value.\"\"\"\n"
           "    sums = list(values)\n"
           "    for parent in reversed(range(len(sums) // 2)):\n"
           "        for child in (2 * parent + 1, 2 * parent + 2):\n"
           "            if child < len(sums):\n"
           "                sums[parent] = sums[parent] + sums[child]\n"
           "    return sums[0]\n";
}

}  // namespace

std::string strategySection(Plan& plan) {
    const StrategyConfig& strategy = plan.config.strategy;
    const std::string title = sectionTitle("the strategy (docs/semantics.md §5, §6)");
    // Worker processes and in-process servers use the machine's own devices: nothing to carve.
    if (plan.runtime == Plan::Runtime::MultiWorker) return title + multiWorkerPart(plan);
    if (plan.runtime == Plan::Runtime::ParameterServer) return title + parameterServerPart(plan);
    std::string out = title + devicesPart(plan);
    if (strategy.type == StrategyKind::Mirrored && strategy.crossDeviceOps == CrossDeviceOps::Tree && strategy.replicaCount() > 1)
        out += treeSum();
    out += "\n\ndef make_strategy():\n";
    switch (strategy.type) {
        case StrategyKind::Mirrored:
            out += mirrored(plan);
            break;
        case StrategyKind::CentralStorage:
            out += centralStorage(plan);
            break;
        default:
            out += oneDevice(plan);
            break;
    }
    return out;
}

}  // namespace distlab::tensorflow_code
