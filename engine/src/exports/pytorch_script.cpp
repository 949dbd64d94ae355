#include "exports/pytorch_script.hpp"

#include "exports/python_text.hpp"

namespace distlab {
namespace {

// The part of every script that does not depend on the run: it reads RUN, WEIGHTS_FILE and
// DATA_FILE, which the generated head defines. Raw strings, so the Python reads as Python, around
// the safetensors reader the TensorFlow code shares (python_text.hpp);
// tests/e2e/test_cli_export_pytorch.cpp runs the script against distlab-cli train.
constexpr const char* kBodyBeforeReader = R"PY(import argparse
import contextlib
import json
import os
import struct
import sys
import tempfile

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


# --- safetensors, read and written with struct and numpy (no safetensors package needed) ---------

)PY";

// After the shared safetensors reader (python_text.hpp); the blank lines between them are the
// script's own.
constexpr const char* kBodyAfterReader = R"PY(

def write_safetensors(path, tensors):
    """F32 tensors in DistLab's layout (header padded with spaces to 8 bytes), written atomically."""
    header, chunks, offset = {}, [], 0
    for name, value in tensors.items():
        raw = np.ascontiguousarray(value, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(value.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".tmp-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


# --- the model (docs/semantics.md §7) -----------------------------------------------------------

ACTIVATIONS = {
    "linear": lambda z: z,
    "relu": torch.relu,
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "gelu": F.gelu,  # the exact form with erf, as DistLab's
}


class DistLabModel(torch.nn.Module):
    """DistLab's layers with DistLab's parameters: a dense kernel is [inputs, units], y = act(x W + b);
    a residual block is y = x + f_1(x) + ... + f_b(x). Parameters are kept in DistLab's order."""

    def __init__(self, layers, weights):
        super().__init__()
        self.names = []
        self.parameters_in_order = torch.nn.ParameterList()
        self.plan = [self._build(layer, weights) for layer in layers]

    def _parameter(self, name, weights):
        self.names.append(name)
        self.parameters_in_order.append(torch.nn.Parameter(torch.tensor(weights[name], dtype=torch.float32)))
        return len(self.names) - 1

    def _build(self, layer, weights):
        if layer["type"] == "dense":
            return ("dense", self._parameter(layer["kernel"], weights), self._parameter(layer["bias"], weights),
                    ACTIVATIONS[layer["activation"]])
        return ("residual", [[self._build(inner, weights) for inner in branch] for branch in layer["branches"]])

    def _apply(self, step, x):
        if step[0] == "dense":
            _, kernel, bias, activation = step
            return activation(torch.addmm(self.parameters_in_order[bias], x, self.parameters_in_order[kernel]))
        total = x
        for branch in step[1]:
            y = x
            for inner in branch:
                y = self._apply(inner, y)
            total = total + y
        return total

    def forward(self, x):
        for step in self.plan:
            x = self._apply(step, x)
        return x

    def named_weights(self):
        return {name: p.detach().numpy() for name, p in zip(self.names, self.parameters_in_order)}


def loss_sum(outputs, targets):
    """The sum of the per-example losses (docs/semantics.md §4.1, §7): DistLab divides by the global
    batch, not the shard, so the caller scales it."""
    if RUN["loss"] == "softmax_cross_entropy":
        return F.cross_entropy(outputs, targets, reduction="sum")
    return ((outputs - targets) ** 2).mean(dim=1).sum()  # MSE: the mean over the outputs, per example


def make_optimizer(parameters):
    """DistLab's optimizers are PyTorch's forms (docs/semantics.md §8). DistLab holds its
    hyperparameters as float32, so they are rounded to float32 here too."""
    spec = RUN["optimizer"]
    f32 = lambda value: float(np.float32(value))
    if spec["type"] == "sgd":
        momentum = f32(spec["momentum"])
        return torch.optim.SGD(parameters, lr=f32(spec["learning_rate"]), momentum=momentum,
                               nesterov=spec["nesterov"] and momentum > 0)
    return torch.optim.Adam(parameters, lr=f32(spec["learning_rate"]), betas=(f32(spec["beta1"]), f32(spec["beta2"])),
                            eps=f32(spec["epsilon"]))


# --- training ------------------------------------------------------------------------------------

def train(rank, world, steps, save_weights, init_file):
    """One replica: rank r of `world` (DDP when world > 1), as DistLab's replica r computes."""
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // world))
    if world > 1:
        # The ranks are processes of this machine: loopback needs no resolvable host name.
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
        dist.init_process_group("gloo", init_method="file://" + init_file, rank=rank, world_size=world)
    weights = read_safetensors(os.path.join(HERE, WEIGHTS_FILE))
    data = read_safetensors(os.path.join(HERE, DATA_FILE))
    x = torch.from_numpy(data["x"].astype(np.float32))
    if RUN["loss"] == "softmax_cross_entropy":
        y = torch.from_numpy(data["labels"].astype(np.int64))
    else:
        y = torch.from_numpy(data["targets"].astype(np.float32))
    batches = data["batches"]

    model = DistLabModel(RUN["layers"], weights)
    # DDP averages the replicas' gradients; DistLab sums them (docs/semantics.md §4.2), each the
    # gradient of its shard's loss sum / G. Scaling each replica's loss by world / G makes the
    # average DDP takes equal DistLab's sum.
    net = torch.nn.parallel.DistributedDataParallel(model) if world > 1 else model
    optimizer = make_optimizer(model.parameters())
    global_batch = RUN["global_batch_size"]
    scale = world / global_batch
    micro_steps = RUN["gradient_accumulation_steps"]
    shard = global_batch // world
    micro = shard // micro_steps
    report_every = max(1, steps // 10)

    for step in range(steps):
        optimizer.zero_grad(set_to_none=False)
        mine = batches[step][rank * shard:(rank + 1) * shard]  # replica r's contiguous shard (docs/semantics.md §9)
        step_loss = torch.zeros((), dtype=torch.float64)
        for m in range(micro_steps):  # accumulation: k contiguous micro-batches (docs/semantics.md §4.3)
            indices = torch.from_numpy(mine[m * micro:(m + 1) * micro].astype(np.int64))
            last = m + 1 == micro_steps
            # Reduce once per update, after the last micro-batch, as DistLab does.
            context = net.no_sync() if world > 1 and not last else contextlib.nullcontext()
            with context:
                total = loss_sum(net(x[indices]), y[indices])
                (total * scale).backward()
            step_loss += total.detach().double()
        optimizer.step()
        if world > 1:
            dist.all_reduce(step_loss)
        if rank == 0 and ((step + 1) % report_every == 0 or step + 1 == steps):
            print(f"step {step + 1}/{steps} loss {step_loss.item() / global_batch:.6f}", flush=True)

    if rank == 0 and save_weights:
        write_safetensors(save_weights, model.named_weights())
        print(f"saved weights to {save_weights}", flush=True)
    if world > 1:
        dist.destroy_process_group()


# --- tensor parallelism (docs/semantics.md §12.5) --------------------------------------------------

class _CopyToGroup(torch.autograd.Function):
    """Megatron's f: the input as it is forward; its gradient summed over the tensor-parallel group."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x

    @staticmethod
    def backward(ctx, grad):
        grad = grad.clone()
        dist.all_reduce(grad, group=ctx.group)
        return grad, None


class _SumOverGroup(torch.autograd.Function):
    """Megatron's g: the partial products summed over the tensor-parallel group forward; the gradient as it is."""

    @staticmethod
    def forward(ctx, x, group):
        x = x.clone()
        dist.all_reduce(x, group=group)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def train_tensor_parallel(rank, world, steps, save_weights, init_file):
    """Rank r is data-parallel copy r // tp's tensor-parallel rank r % tp, as DistLab's device cpu:r.
    Column layers hold their slice of the kernel's columns and the bias, row layers their slice of
    the kernel's rows and the whole bias; every rank of a copy computes the copy's whole shard."""
    tp, dp = RUN["tensor_parallel"], RUN["data_parallel"]
    copy, t = divmod(rank, tp)
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // world))
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    dist.init_process_group("gloo", init_method="file://" + init_file, rank=rank, world_size=world)
    # Every rank creates every group, in one order (torch.distributed requires it).
    tensor_groups = [dist.new_group([c * tp + d for d in range(tp)]) for c in range(dp)]
    data_groups = [dist.new_group([c * tp + d for c in range(dp)]) for d in range(tp)]
    tensor_group, data_group = tensor_groups[copy], data_groups[t]
    weights = read_safetensors(os.path.join(HERE, WEIGHTS_FILE))
    data = read_safetensors(os.path.join(HERE, DATA_FILE))
    x_all = torch.from_numpy(data["x"].astype(np.float32))
    y_all = torch.from_numpy(data["labels"].astype(np.int64)) if RUN["loss"] == "softmax_cross_entropy" else \
        torch.from_numpy(data["targets"].astype(np.float32))
    batches = data["batches"]

    layers = []
    for layer in RUN["layers"]:
        kernel, bias = weights[layer["kernel"]], weights[layer["bias"]]
        if layer["split"] == "column":
            width = kernel.shape[1] // tp
            kernel, bias = kernel[:, t * width:(t + 1) * width], bias[t * width:(t + 1) * width]
        elif layer["split"] == "row":
            rows = kernel.shape[0] // tp
            kernel = kernel[t * rows:(t + 1) * rows, :]
        layers.append((layer, torch.nn.Parameter(torch.tensor(np.ascontiguousarray(kernel))),
                       torch.nn.Parameter(torch.tensor(np.ascontiguousarray(bias)))))
    parameters = [p for _, kernel, bias in layers for p in (kernel, bias)]
    optimizer = make_optimizer(parameters)

    def forward(x):
        for layer, kernel, bias in layers:
            activation = ACTIVATIONS[layer["activation"]]
            if layer["split"] == "column":
                x = activation(torch.addmm(bias, _CopyToGroup.apply(x, tensor_group), kernel))
            elif layer["split"] == "row":
                x = activation(_SumOverGroup.apply(x @ kernel, tensor_group) + bias)
            else:
                x = activation(torch.addmm(bias, x, kernel))
        return x

    global_batch = RUN["global_batch_size"]
    shard = global_batch // dp
    report_every = max(1, steps // 10)
    for step in range(steps):
        optimizer.zero_grad(set_to_none=False)
        indices = torch.from_numpy(batches[step][copy * shard:(copy + 1) * shard].astype(np.int64))
        total = loss_sum(forward(x_all[indices]), y_all[indices])
        (total / global_batch).backward()  # each example's loss x 1/G, as DistLab's
        if dp > 1:  # the copies' gradients of each rank's own share, summed (docs/semantics.md §12.5)
            for parameter in parameters:
                dist.all_reduce(parameter.grad, group=data_group)
        optimizer.step()
        step_loss = total.detach().double()
        if dp > 1:  # the copies' shards' losses: the batch's
            dist.all_reduce(step_loss, group=data_group)
        if rank == 0 and ((step + 1) % report_every == 0 or step + 1 == steps):
            print(f"step {step + 1}/{steps} loss {step_loss.item() / global_batch:.6f}", flush=True)

    # The whole weights, put back together from copy 0's shards.
    named = {}
    for layer, kernel, bias in layers:
        for name, value, axis in ((layer["kernel"], kernel, 1 if layer["split"] == "column" else 0),
                                  (layer["bias"], bias, 0)):
            split = layer["split"] == "column" or (layer["split"] == "row" and name == layer["kernel"])
            if split and tp > 1:
                parts = [torch.empty_like(value.detach()) for _ in range(tp)]
                dist.all_gather(parts, value.detach().contiguous(), group=tensor_group)
                named[name] = torch.cat(parts, dim=axis).numpy()
            else:
                named[name] = value.detach().numpy()
    if rank == 0 and save_weights:
        write_safetensors(save_weights, named)
        print(f"saved weights to {save_weights}", flush=True)
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=f"Reproduce the DistLab run {RUN['name']!r} with PyTorch.")
    parser.add_argument("--steps", type=int, default=RUN["steps"], metavar="N",
                        help=f"optimizer updates to run, at most {RUN['steps']} (the batches exported); "
                             "default: all of them")
    parser.add_argument("--save-weights", metavar="W.safetensors", default="",
                        help="save the final weights here (F32, DistLab's parameter names)")
    args = parser.parse_args()
    if not 0 <= args.steps <= RUN["steps"]:
        parser.error(f"--steps: expected an integer in [0, {RUN['steps']}] (the batches exported; "
                     "export again with a larger --steps for more)")
    save_weights = os.path.abspath(args.save_weights) if args.save_weights else ""
    world = RUN["replicas"]
    run = train_tensor_parallel if RUN["strategy"] == "tensor_parallel" else train
    if world == 1 and run is train:
        train(0, 1, args.steps, save_weights, "")
        return
    with tempfile.TemporaryDirectory() as folder:
        mp.spawn(run, args=(world, args.steps, save_weights, os.path.join(folder, "rendezvous")), nprocs=world)


if __name__ == "__main__":
    main()
)PY";

}  // namespace

std::string pyTorchScript(const std::string& runName, const std::string& runLiteral, const PyTorchExportFiles& files) {
    // Names go into the script only as quoted literals, so no name (a newline in a path) can end
    // a comment and become code.
    const auto quoted = pythonString;
    std::string script =
        "#!/usr/bin/env python3\n"
        "# Reproduces the DistLab run " +
        quoted(runName) +
        " with PyTorch: the same model, initial\n"
        "# weights, batches, loss scaling, optimizer and (for data-parallel runs) replicas, as DDP\n"
        "# over gloo, or (tensor_parallel) Megatron's split over gloo processes. Written by DistLab's\n"
        "# export (docs/interfaces.md §3.9).\n"
        "# Usage: python3 " +
        quoted(files.script) +
        " [--steps N] [--save-weights W.safetensors]\n\n"
        "# Beside this script: the initial weights (DistLab's parameter names) and the training set\n"
        "# with the sample indices of every update's global batch.\n"
        "WEIGHTS_FILE = " +
        quoted(files.weights) +
        "\n"
        "DATA_FILE = " +
        quoted(files.data) +
        "\n\n"
        "RUN = " +
        runLiteral + "\n\n";
    script += kBodyBeforeReader;
    script += kReadSafeTensorsPython;
    script += kBodyAfterReader;
    return script;
}

}  // namespace distlab
