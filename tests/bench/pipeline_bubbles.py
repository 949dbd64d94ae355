#!/usr/bin/python3
"""Pipeline bubbles against their closed forms over p = 2-8 devices and m = 1-16 micro-batches
(issue 43, docs/semantics.md §12.3): m = 1, 2, 3, 4, 6, 8, 12, 16.

The closed forms assume equal stages, a backward twice a forward (B and W one each) and hand-overs
that take no time. This sweep builds a model whose stages are as equal as DistLab's passes allow:
each stage holds one 1024-wide dense layer (1024 x 1024, ReLU), the first stage also a 16 -> 1024
layer in front (so its big layer computes an input gradient, as every other stage's does: a model's
first layer computes none) and the last a 1024 -> 10 output and the loss. Each micro-batch is 32
rows (the global batch is 32 m), so a pass is one 32 x 1024 x 1024 product or two and a hand-over
is 128 KiB. Every run is on the virtual clock (each pass timed alone, placed by the schedule's
dependencies: what p devices with a core each would do), `distlab-cli train --trace`, the first
steps left out; bubbles are read from the trace by pipeline_schedules.measure.

Schedules: GPipe and 1F1B for every (p, m) against (p - 1)/(m + p - 1); interleaved 1F1B (v = 2)
where m is a multiple of p against (p - 1)/(v m + p - 1); ZB-H1 where m >= p (its closed form's
range) against (p - 1)/(3m + p - 1). A device is "within 10 %" when |measured - theory| <= 0.1 x
theory, and beside it against the schedule simulated at each stage's own mean forward, backward,
B and W times in the run (`bubble_fraction_simulated`), which keeps neither the formula's equal
stages nor its 1:2 passes. Usage (from the repository root, after building distlab-cli):

  /usr/bin/python3 tests/bench/pipeline_bubbles.py [--cli build/release/app/cli/distlab-cli]
      [--steps 10] [--warmup 2] [--markdown out.md]
"""
import argparse
import os
import statistics
import sys

from pipeline_schedules import ROOT, measure, theory

WIDTH = 1024
ROWS = 32


def equal_stages(p, m, schedule, v):
    stages = p * v
    layers = [{"type": "dense", "units": WIDTH, "activation": "relu", "stage": 0}]
    layers += [{"type": "dense", "units": WIDTH, "activation": "relu", "stage": s} for s in range(stages)]
    layers += [{"type": "dense", "units": 10, "stage": stages - 1}]
    return {"name": f"bubbles-p{p}-m{m}-{schedule}", "seed": 0,
            "model": {"layers": layers, "loss": "softmax_cross_entropy"},
            "data": {"source": "random", "features": 16, "classes": 10, "samples": ROWS * m * 4, "shuffle": False,
                     "global_batch_size": ROWS * m},
            "optimizer": {"type": "sgd", "learning_rate": 0.001},
            "strategy": {"type": "pipeline", "stages": p, "micro_batches": m, "schedule": schedule, "virtual_stages": v},
            "clock": "virtual", "threads": 2}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "app", "cli", "distlab-cli"))
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--markdown")
    args = parser.parse_args()
    runs = []
    for p in range(2, 9):
        for m in (1, 2, 3, 4, 6, 8, 12, 16):
            runs += [(p, m, "gpipe", 1), (p, m, "1f1b", 1)]
            if m % p == 0:
                runs.append((p, m, "interleaved", 2))
            if m >= p:
                runs.append((p, m, "zb-h1", 1))
    rows, summary = [], {}
    for p, m, schedule, v in runs:
        _, _, bubbles, run = measure(args.cli, equal_stages(p, m, schedule, v), args.steps, args.warmup)
        expected = theory(schedule, p, m, v)
        simulated = run["bubble_fraction_simulated"]  # the schedule at each stage's mean F, B, W times
        deviations = [abs(b - expected) / expected for b in bubbles]
        from_simulated = [abs(b - s) / s for b, s in zip(bubbles, simulated)]
        name = schedule + (f" v={v}" if v > 1 else "")
        within = sum(d <= 0.10 for d in deviations)
        within_simulated = sum(d <= 0.10 for d in from_simulated)
        summary.setdefault(name, []).append((max(deviations), statistics.median(deviations), within, len(bubbles),
                                             within_simulated))
        rows.append([name, str(p), str(m), f"{expected:.3f}", f"{min(simulated):.3f}-{max(simulated):.3f}",
                     f"{min(bubbles):.3f}-{max(bubbles):.3f}", f"{statistics.mean(bubbles):.3f}",
                     f"{100 * max(deviations):.1f} %", f"{within}/{len(bubbles)}", f"{within_simulated}/{len(bubbles)}"])
        print(" | ".join(rows[-1]), flush=True)
    header = ["schedule", "p", "m", "closed form", "simulated at the run's pass times", "measured (devices' range)", "mean",
              "largest deviation from the closed form", "devices within 10 % of it", "within 10 % of the simulated"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]
    lines += ["", "| schedule | runs | devices within 10 % of the closed form | of the simulated | median deviation | "
              "largest deviation |", "|---|---|---|---|---|---|"]
    for name, results in summary.items():
        within = sum(r[2] for r in results)
        devices = sum(r[3] for r in results)
        within_simulated = sum(r[4] for r in results)
        lines.append(f"| {name} | {len(results)} | {within}/{devices} ({100 * within / devices:.0f} %) | "
                     f"{within_simulated}/{devices} ({100 * within_simulated / devices:.0f} %) | "
                     f"{100 * statistics.median(r[1] for r in results):.1f} % | {100 * max(r[0] for r in results):.1f} % |")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
