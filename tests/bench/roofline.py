"""The roofline's two numbers for a workload: the FLOPs a training sample costs, and the FMA peak
of the cores a run uses (measured by fma_peak.cpp, built here with g++): the best round, and the
rate the cores sustained over the measurement.

FLOPs per sample follow ../shared/bench/README.md: nominal = 6 × weight-matrix entries (forward,
weight gradient, input gradient: 2 each), and executed = nominal − 2 × the first layer's entries,
since no one computes the gradient of the input data. Both are reported; the executed count is
what the cores really did, so it is the one set against the peak.
"""
import json
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def layer_sizes(workload_json):
    """[features, units, units, ...] from a DistLab workload config (dense layers only)."""
    with open(workload_json) as f:
        config = json.load(f)
    return [config["data"]["features"]] + [layer["units"] for layer in config["model"]["layers"]]


def flops_per_sample(sizes):
    weights = sum(a * b for a, b in zip(sizes[:-1], sizes[1:]))
    return dict(nominal=6 * weights, executed=6 * weights - 2 * sizes[0] * sizes[1])


class PeakMeter:
    """fma_peak.cpp, built once: measure(threads) gives the GFLOP/s of one core and of `threads`
    cores, the better of AVX-512 and AVX2 width for each, as the best round (gflops) and as the rate
    sustained over the whole measurement (sustained)."""

    def __init__(self):
        self._dir = tempfile.TemporaryDirectory()
        self._binary = os.path.join(self._dir.name, "fma_peak")
        subprocess.run(["g++", "-O3", "-pthread", "-I", os.path.join(ROOT, "engine", "src"), os.path.join(HERE, "fma_peak.cpp"),
                        "-o", self._binary], check=True)

    def measure(self, threads, seconds=1.0, widest_only=False):
        cmd = [self._binary, str(threads), str(seconds)] + (["widest"] if widest_only else [])
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        report = json.loads(out.strip().splitlines()[-1])
        widths = [report[w] for w in ("avx512", "avx2") if report.get(w)]
        return dict(report=report,
                    gflops={1: max(w["gflops_1_thread"] for w in widths),
                            threads: max(w["gflops_all_threads"] for w in widths)},
                    sustained={1: max(w["sustained_1_thread"] for w in widths),
                               threads: max(w["sustained_all_threads"] for w in widths)})


def best_of(*peaks):
    """The higher figure of each of several measurements: load from other work only lowers a peak."""
    first = peaks[0]
    return dict(report=[p["report"] for p in peaks],
                gflops={cores: max(p["gflops"][cores] for p in peaks) for cores in first["gflops"]})


def achieved(samples_per_s, flops):
    """GFLOP/s, nominal and executed, at a throughput of samples_per_s."""
    return {kind: samples_per_s * count / 1e9 for kind, count in flops.items()}
