#!/usr/bin/python3
"""Pipeline schedules measured against their theory (issue 43, docs/semantics.md §12).

For W3's shape split into pipelines (m = 8 micro-batches) under each schedule, on the virtual clock
(each pass timed alone, placed by its dependencies: what p devices with a core each would do) and on
the wall clock (p device threads on this machine's cores), runs `distlab-cli train --trace` and
reads every pass from the trace. Per run it reports:

- the measured step: the median over the measured steps of the passes' makespan (first pass begins
  to last pass ends; the optimizer after the flush is left out);
- the prediction from measured stage times and the bubble formula: the busiest device's mean busy
  time a step divided by (1 - the schedule's closed-form bubble), i.e. makespan = busy / (1 - bubble);
- measured / predicted;
- each device's measured bubble (idle share of the makespans) beside the closed form.

Workloads: W3 (3072-1024-1024-10, batch 128) as a 2-stage pipeline (its first layer, 3.1 M
multiply-accumulates a sample, against 1.0 M + 10 k: unequal stages by construction), and W3's
1024-wide layers four deep (1024-1024-1024-1024-1024-10, batch 128) as 2- and 4-stage pipelines
with equal stages. Usage (from the repository root, after building distlab-cli):

  /usr/bin/python3 tests/bench/pipeline_schedules.py [--cli build/release/app/cli/distlab-cli]
      [--steps 40] [--warmup 8] [--markdown out.md]
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
PASSES = {"forward", "backward", "backward_input", "backward_weight"}


def workload(name, widths, features):
    layers = [{"type": "dense", "units": w, "activation": "relu"} for w in widths] + [{"type": "dense", "units": 10}]
    return {"name": name, "seed": 0, "model": {"layers": layers, "loss": "softmax_cross_entropy"},
            "data": {"source": "random", "features": features, "classes": 10, "samples": 2048, "shuffle": False,
                     "global_batch_size": 128},
            "optimizer": {"type": "sgd", "learning_rate": 0.01}}


def theory(schedule, p, m, v):
    if schedule == "zb-h1":
        return (p - 1) / (3 * m + p - 1)
    return (p - 1) / ((v if schedule == "interleaved" else 1) * m + p - 1)


def measure(cli, config, steps, warmup):
    """The passes' median makespan after `warmup` steps, the busiest device's busy time a step, each
    device's bubble (from the trace) and train's JSON summary."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "run.json")
        trace = os.path.join(folder, "trace.json")
        with open(path, "w") as out:
            json.dump(config, out)
        run = subprocess.run([cli, "train", path, "--steps", str(steps), "--trace", trace, "--quiet"], check=True,
                             stdout=subprocess.PIPE, text=True)
        summary = json.loads(run.stdout.strip().splitlines()[-1])
        with open(trace) as source:
            events = json.load(source)["traceEvents"]
    per_step = {}
    for event in events:
        if event.get("ph") != "X" or event["name"] not in PASSES:
            continue
        step = event["args"]["step"]
        if step <= warmup:
            continue
        per_step.setdefault(step, []).append(event)
    makespans, busy = [], {}
    for step, passes in per_step.items():
        first = min(e["ts"] for e in passes)
        last = max(e["ts"] + e["dur"] for e in passes)
        makespans.append(last - first)
        for event in passes:
            busy.setdefault(event["tid"], []).append((step, event["dur"]))
    devices = sorted(busy)
    busy_per_step = {d: sum(dur for _, dur in busy[d]) / len(per_step) for d in devices}
    total_makespan = sum(makespans)
    bubbles = [1 - sum(dur for _, dur in busy[d]) / total_makespan for d in devices]
    return statistics.median(makespans), max(busy_per_step.values()), bubbles, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "app", "cli", "distlab-cli"))
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=8)
    parser.add_argument("--markdown")
    args = parser.parse_args()
    w3 = workload("W3", [1024, 1024], 3072)
    deep = workload("W3-deep", [1024, 1024, 1024, 1024], 1024)
    runs = [(w3, 2, "gpipe", 1), (w3, 2, "1f1b", 1), (w3, 2, "zb-h1", 1),
            (deep, 2, "1f1b", 1), (deep, 2, "interleaved", 2), (deep, 2, "zb-h1", 1),
            (deep, 4, "gpipe", 1), (deep, 4, "1f1b", 1), (deep, 4, "zb-h1", 1)]
    m = 8
    rows = []
    for base, p, schedule, v in runs:
        for clock in ("virtual", "wall"):
            config = dict(base)
            config["strategy"] = {"type": "pipeline", "stages": p, "micro_batches": m, "schedule": schedule, "virtual_stages": v}
            config["clock"] = clock
            config["threads"] = 2
            measured, busiest, bubbles, _ = measure(args.cli, config, args.steps, args.warmup)
            expected = theory(schedule, p, m, v)
            predicted = busiest / (1 - expected)
            rows.append([base["name"], str(p), schedule + (f" v={v}" if v > 1 else ""), clock, f"{measured / 1000:.2f}",
                         f"{predicted / 1000:.2f}", f"{measured / predicted:.2f}", " / ".join(f"{b:.2f}" for b in bubbles),
                         f"{expected:.3f}"])
            print(" | ".join(rows[-1]), flush=True)
    header = ["workload", "p", "schedule (m = 8)", "clock", "step ms (median)", "predicted ms", "measured / predicted",
              "bubble per device", "bubble theory"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
