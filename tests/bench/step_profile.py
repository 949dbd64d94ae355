#!/usr/bin/python3
"""Where DistLab's training step spends its time: products, elementwise work, reductions, the
loss, the optimizer, the batch's gather, threads waiting for each other, the operating system and
the rest, from a sampled profile.

The engine's spans stop at forward / backward / optimizer, which mixes products with elementwise
work, so this samples `distlab-cli bench` with `perf record` (cpu-clock, after a delay that skips
start-up and warm-up) and sorts the samples by the function they landed in. Usage:

  /usr/bin/python3 tests/bench/step_profile.py [--cli ...] [--only W1,W3] [--seconds 4]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# First match wins, on "<library> <function>". The engine's packed product (its micro-kernel, its
# blocking loop and packing copies) and OpenBLAS's sgemm kernels and packing routines are the
# products; libgomp (its barriers and spin loops, unnamed in Debian's stripped build), OpenBLAS's
# inner_thread (whose own time is its spin on the other threads' packing) and sched_yield are the
# threads of a team waiting for each other.
BUCKETS = [
    ("waiting", r"libgomp|gomp_|GOMP_|inner_thread|sched_yield|spinWait|SpinBarrier|futex"),
    ("products", r"sgemm|gemm_|gebp|gemm_pack|exec_blas|matrixProduct|microKernel|UnitRunner|claimUnits|packedProduct|copyStrips|transposeStrip"),
    ("optimizer", r"Sgd::|Adam::|Optimizer::"),
    ("loss", r"softmaxCrossEntropy|meanSquaredError|LossFunction|logf|expf"),
    ("reductions", r"denseBackward|biasGradient|colwise|redux|sumOfSquares"),
    ("elementwise", r"activat|denseForward|tanh|logistic"),
    # The batch's rows copied out of the data set (gatherBatch's memcpy, glibc's memmove).
    ("gather", r"gatherBatch|memmove|memcpy"),
    # The operating system in the process's name: page faults, timers.
    ("kernel", r"^\[kernel"),
]


def profile(cli, workload, overrides, seconds, delay_ms):
    config = os.path.join(HERE, "workloads", workload + ".json")
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        cmd = ["perf", "record", "-q", "-F", "2999", "-D", str(delay_ms), "-o", data, "--", cli, "bench", config,
               "--seconds", str(seconds), "--warmup-steps", "20"]
        for o in overrides:
            cmd += ["--set", o]
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        report = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "dso,symbol", "--stdio",
                                 "--percent-limit", "0"], check=True, capture_output=True, text=True).stdout
    shares = {name: 0.0 for name, _ in BUCKETS}
    shares["other"] = 0.0
    top_other = []
    for line in report.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)", line)
        if not m:
            continue
        percent, symbol = float(m.group(1)), m.group(2) + " " + m.group(3).strip()
        bucket = next((name for name, pattern in BUCKETS if re.search(pattern, symbol)), "other")
        shares[bucket] += percent
        if bucket == "other" and percent >= 1.0:
            top_other.append((symbol[:80], percent))
    return dict(shares={k: round(v, 1) for k, v in shares.items()}, largest_other=top_other[:5])


def main():
    sys.path.insert(0, HERE)
    from compare_pytorch import CASES  # one list of cases for both scripts
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "app", "cli", "distlab-cli"))
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--delay-ms", type=int, default=1500)
    ap.add_argument("--only", default="")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    rows = []
    for case in CASES:
        if only and case.name not in only:
            continue
        result = profile(a.cli, case.workload, case.overrides, a.seconds, a.delay_ms)
        rows.append(dict(case=case.name, **result))
        print(f"{case.name:12s} " + "  ".join(f"{k} {v:5.1f}%" for k, v in result["shares"].items()), flush=True)
        if result["largest_other"]:
            print("             other: " + ", ".join(f"{s} {p:.1f}%" for s, p in result["largest_other"]), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
