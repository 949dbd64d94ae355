#!/usr/bin/python3
"""Tensor parallelism measured against its prediction (issue 43, docs/semantics.md §12.5).

W3's shape (3072-1024-1024-10, batch 128; Adam off, plain SGD) on one device and split over tp = 2
devices (Megatron's column- and row-parallel pair on the two 1024-wide layers, the 10-wide output
whole on both), each run by `distlab-cli train --trace`, every span read from the trace. Per run:

- the measured step: the median over the measured steps of the step's makespan (its first span
  begins to its last span ends, the optimizer included);
- for tp = 2, the prediction from measured times: the compute and optimizer time a step of one
  device with one thread (a device with a core, as each of the tp devices has here) divided by tp
  (each device computes 1/tp of every split product), plus a lane's measured all-reduce time a step
  (3 all-reduces of [128 x 1024]: two forward, one backward), and the ratio measured / predicted
  (above 1: what the split loses besides the all-reduces: the whole last layer on every device, the
  column copies, an optimizer pass that one device fuses into its backward products).

One device runs twice: with one thread (the prediction's basis) and with the machine's threads
(`threads: 0`, for reference); tp devices with one thread each of the same cores (DistLab's split of
the threads among its devices). Threads of one process, not processes: the all-reduces are
in-process copies. PyTorch 1.13 (the peer here) has no tensor
parallelism (torch.distributed.tensor.parallel came with 2.0), so no peer is measured.

Usage (from the repository root, after building distlab-cli):

  /usr/bin/python3 tests/bench/tensor_parallel.py [--cli build/release/app/cli/distlab-cli]
      [--steps 60] [--warmup 10] [--markdown out.md]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
COMPUTE = {"forward", "backward"}


def w3(strategy, threads=0):
    layers = [{"type": "dense", "units": 1024, "activation": "relu"}, {"type": "dense", "units": 1024, "activation": "relu"},
              {"type": "dense", "units": 10}]
    return {"name": "w3-tp", "seed": 0, "model": {"layers": layers, "loss": "softmax_cross_entropy"},
            "data": {"source": "random", "features": 3072, "classes": 10, "samples": 2048, "shuffle": False,
                     "global_batch_size": 128},
            "optimizer": {"type": "sgd", "learning_rate": 0.01}, "strategy": strategy, "threads": threads}


def measure(cli, config, steps, warmup):
    """Median step makespan, and per step the mean over lanes of each kind's total time (µs)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "run.json")
        trace = os.path.join(folder, "trace.json")
        with open(path, "w") as out:
            json.dump(config, out)
        subprocess.run([cli, "train", path, "--steps", str(steps), "--trace", trace, "--quiet"], check=True,
                       stdout=subprocess.DEVNULL)
        with open(trace) as source:
            events = json.load(source)["traceEvents"]
    steps_seen = {}
    for event in events:
        if event.get("ph") != "X" or "step" not in event.get("args", {}) or event["args"]["step"] <= warmup:
            continue
        steps_seen.setdefault(event["args"]["step"], []).append(event)
    makespans, totals = [], {}
    for spans in steps_seen.values():
        kinds = {"forward", "backward", "all_reduce", "optimizer"}
        spans = [e for e in spans if e["name"] in kinds]
        makespans.append(max(e["ts"] + e["dur"] for e in spans) - min(e["ts"] for e in spans))
        lanes = {e["tid"] for e in spans}
        for kind in ("compute", "all_reduce", "optimizer"):
            names = COMPUTE if kind == "compute" else {kind}
            totals.setdefault(kind, []).append(sum(e["dur"] for e in spans if e["name"] in names) / len(lanes))
    return statistics.median(makespans), {kind: statistics.median(values) for kind, values in totals.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "app", "cli", "distlab-cli"))
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--markdown")
    args = parser.parse_args()
    one_step, one = measure(args.cli, w3({"type": "one_device"}, threads=1), args.steps, args.warmup)
    all_step, every = measure(args.cli, w3({"type": "one_device"}), args.steps, args.warmup)
    rows = [("one device, 1 thread", one_step, one, None), (f"one device, {os.cpu_count()} threads", all_step, every, None)]
    for tp in (2,):
        step, lane = measure(args.cli, w3({"type": "tensor_parallel", "tensor_parallel": tp}), args.steps, args.warmup)
        predicted = (one["compute"] + one["optimizer"]) / tp + lane["all_reduce"]
        rows.append((f"tensor_parallel tp={tp}", step, lane, predicted))
    lines = [f"Tensor parallelism, W3 (3072-1024-1024-10, batch 128), {os.cpu_count()} CPUs, {args.steps} steps "
             f"({args.warmup} warm-up), medians in ms:", "",
             "| run | step | compute a lane | all-reduce a lane | optimizer a lane | predicted | measured / predicted |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, step, lane, predicted in rows:
        ratio = f"{step / predicted:.2f}" if predicted else "—"
        forecast = f"{predicted / 1000:.2f}" if predicted else "—"
        lines.append(f"| {name} | {step / 1000:.2f} | {lane['compute'] / 1000:.2f} | {lane['all_reduce'] / 1000:.2f} | "
                     f"{lane['optimizer'] / 1000:.2f} | {forecast} | {ratio} |")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
