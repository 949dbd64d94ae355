#!/usr/bin/python3
"""DistLab against its PyTorch peer at its best on the reference workloads, in one run.

For each case, `--repeats` times: one `distlab-cli bench` run, then the peer script of
../shared/bench once per installed OpenBLAS build, each with OpenBLAS's own kernel choice and with
each kernel type of `--coretypes` forced (by default every type this CPU can run, since OpenBLAS's
own pick can be far from its best: 0.3.21 runs Emerald Rapids on its SSE3 kernels; peer_blas.py pins
the build per run and records which library each process mapped, the kernels OpenBLAS ran and the
thread counts). DistLab is compared against the fastest
variant by median. A roofline goes with it: the FMA peak of the cores each case uses
(fma_peak.cpp: its best round at the start and at the end, and the rate the cores sustained just
before and after each DistLab run) and the GFLOP/s both sides reach (roofline.py). For the cases of one
replica, DistLab also runs once more per repeat with `--fma-probe`: a 0.1-ms FMA burst after each of
its steps on the same threads, so its GFLOP/s is also set against the FMA rate of the same moments
(the throughput and ratios come from the runs without it). Usage (from the repository
root, after `cmake --preset release && cmake --build --preset release --target distlab-cli`):

  /usr/bin/python3 tests/bench/compare_pytorch.py [--cli build/release/app/cli/distlab-cli]
      [--peer-dir ../shared/bench] [--seconds 4] [--repeats 3] [--only W1,W2-mirrored]
      [--json out.json] [--markdown out.md]
"""
import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import markdown_tables  # noqa: E402
import peer_blas  # noqa: E402
import roofline  # noqa: E402

Case = collections.namedtuple("Case", "name workload overrides peer metric target cores")
CASES = [
    Case("W1", "w1", ["threads=1"], ["pytorch_train.py", "--workload", "W1", "--threads", "1"], "samples_per_sec", 1.1, 1),
    Case("W2", "w2", ["threads=1"], ["pytorch_train.py", "--workload", "W2", "--threads", "1"], "steps_per_sec", 10.0, 1),
    Case("W3", "w3", ["threads=2"], ["pytorch_train.py", "--workload", "W3", "--threads", "2"], "samples_per_sec", 1.1, 2),
    Case("W1-mirrored", "w1", ["threads=2", "strategy.type=mirrored", "strategy.replicas=2", "data.global_batch_size=512",
                               "data.samples=8192"],
         ["pytorch_ddp.py", "--workload", "W1", "--world", "2"], "samples_per_sec", 1.2, 2),
    Case("W2-mirrored", "w2", ["threads=2", "strategy.type=mirrored", "strategy.replicas=2", "data.global_batch_size=64",
                               "data.samples=1024"],
         ["pytorch_ddp.py", "--workload", "W2", "--world", "2"], "steps_per_sec", 10.0, 2),
]
PEER_KEYS = {"samples_per_sec": "samples_per_s", "steps_per_sec": "steps_per_s"}
PROBE_SECONDS = 1.0


def run_distlab(cli, case, seconds, probe=False):
    cmd = [cli, "bench", os.path.join(HERE, "workloads", case.workload + ".json"), "--seconds", str(seconds),
           "--warmup-steps", "20"] + (["--fma-probe", str(case.cores)] if probe else [])
    for o in case.overrides:
        cmd += ["--set", o]
    out, loaded, threads = peer_blas.watch(cmd, dict(os.environ), timeout=120 + 10 * seconds)
    return dict(peer_blas.last_json(out), blas_loaded=sorted(loaded), os_threads_max=threads)


def machine_state():
    """Load averages and the compilers and linkers running now: how quiet the machine was (GCC's
    cc1plus, and clang and ld too: an AddressSanitizer build with clang once ran through a whole
    comparison that counted none)."""
    names = subprocess.run(["ps", "-e", "-o", "comm="], capture_output=True, text=True).stdout.split()
    compilers = sum(1 for name in names if re.fullmatch(r"cc1plus|cc1|clang|clang\+\+|clang-\d+|ld|ld\.gold|ld\.lld", name))
    return dict(loadavg=[round(x, 2) for x in os.getloadavg()], compilers_running=compilers,
                at=time.strftime("%H:%M:%S"))


class QuietWatch:
    """Samples every 2 s, in the background, whether a compiler runs: the share of the run that was
    not quiet goes into the report beside the load averages at both ends."""

    def __init__(self):
        self.samples, self.busy, self._stop = 0, 0, threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self):
        while not self._stop.wait(2.0):
            self.samples += 1
            self.busy += machine_state()["compilers_running"] > 0

    def stop(self):
        self._stop.set()
        self._thread.join()
        return dict(samples=self.samples, with_compiler_running=self.busy)


def measure_case(case, a, variants, meter):
    """Each side's runs, and the FMA rate the case's cores sustained just before and just after each
    DistLab run (fma_peak.cpp, the widest width, PROBE_SECONDS): the ceiling under the conditions
    the runs met, which on a shared VM swing by a quarter within a minute."""
    ours, theirs, probes, probed = [], {name: [] for name in variants}, [], []
    probe = lambda: meter.measure(case.cores, PROBE_SECONDS, widest_only=True)["sustained"][case.cores]  # noqa: E731
    for _ in range(a.repeats):  # alternate, so drift on a shared machine hits every side alike
        probes.append(probe())
        ours.append(run_distlab(a.cli, case, a.seconds))
        probes.append(probe())
        if one_replica(case):
            probed.append(run_distlab(a.cli, case, a.seconds, probe=True))
        for name, (folder, extra_env, _) in variants.items():
            theirs[name].append(peer_blas.run(os.path.join(a.peer_dir, case.peer[0]),
                                              case.peer[1:] + ["--seconds", str(a.seconds)], folder,
                                              timeout=120 + 10 * a.seconds, extra_env=extra_env))
    return ours, theirs, probes, probed


def one_replica(case):
    return not any(o.startswith("strategy.type=") for o in case.overrides)


def beside_steps(probed, flops):
    """DistLab's executed GFLOP/s in each --fma-probe run against the FMA rate of the bursts between
    its steps, and the median share."""
    runs = []
    for r in probed:
        achieved = roofline.achieved(r["samples_per_sec"], flops)["executed"]
        runs.append(dict(samples_per_sec=r["samples_per_sec"], gflops=achieved, fma_gflops=r["fma_probe"]["gflops"],
                         fma_best_gflops=r["fma_probe"]["best_gflops"], share=achieved / r["fma_probe"]["gflops"]))
    return dict(runs=runs, share_median=statistics.median(run["share"] for run in runs))


def summarise(case, ours, theirs, probes, peak, flops, probed=()):
    value = lambda runs, key: [r[key] for r in runs]  # noqa: E731
    peers = {}
    for variant, runs in theirs.items():
        peers[variant] = dict(median=statistics.median(value(runs, PEER_KEYS[case.metric])),
                              runs=value(runs, PEER_KEYS[case.metric]),
                              samples_per_s=statistics.median(value(runs, "samples_per_s")),
                              blas_loaded=sorted({f for r in runs for f in r["blas_loaded"]}),
                              torch_threads=sorted({r.get("torch_threads", r.get("threads_per_rank")) for r in runs}),
                              os_threads_max=max(r["os_threads_max"] for r in runs))
    best = max(peers, key=lambda v: peers[v]["median"])
    ours_median = statistics.median(value(ours, case.metric))
    ours_samples = statistics.median(value(ours, "samples_per_sec"))
    ratio = ours_median / peers[best]["median"]
    gflops = dict(distlab=roofline.achieved(ours_samples, flops), pytorch=roofline.achieved(peers[best]["samples_per_s"], flops))
    row = dict(case=case.name, metric=case.metric, cores=case.cores, distlab_median=ours_median,
               distlab_blas_loaded=sorted({f for r in ours for f in r["blas_loaded"]}),
               distlab_matrix_product=sorted({r.get("matrix_product", "?") for r in ours}),
               distlab_openblas_kernels=sorted({r.get("openblas_kernels", "?") for r in ours}),
               distlab_os_threads_max=max(r["os_threads_max"] for r in ours),
               distlab_runs=value(ours, case.metric), peers=peers, best_peer=best, pytorch_median=peers[best]["median"],
               ratio=ratio, target=case.target, met=ratio >= case.target, gflops=gflops,
               sustained_probes=probes, sustained_gflops=statistics.median(probes))
    row["share_of_sustained"] = {side: g["executed"] / row["sustained_gflops"] for side, g in gflops.items()}
    if probed:
        row["beside_steps"] = beside_steps(probed, flops)
    return with_peak(row, peak)


def with_peak(row, peak):
    """Sets the peak of the cores the case uses (the best round of the run's peak measurements) and
    each side's share of it (executed FLOPs)."""
    row["peak_gflops"] = peak["gflops"][row["cores"]]
    row["share_of_peak"] = {side: g["executed"] / row["peak_gflops"] for side, g in row["gflops"].items()}
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "app", "cli", "distlab-cli"))
    ap.add_argument("--peer-dir", default=os.path.join(ROOT, "..", "shared", "bench"))
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--markdown", default="")
    ap.add_argument("--coretypes", default="default,auto",
                    help="OpenBLAS kernel choices to run the peer with, besides each build: default (OpenBLAS's "
                         "own), auto (every kernel type this CPU can run) or OPENBLAS_CORETYPE names (default,auto)")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    before = machine_state()
    watch = QuietWatch()
    builds, missing = peer_blas.installed_builds()
    variants = peer_blas.variants(a.coretypes.split(","))
    kernels = {name: v[2] for name, v in variants.items()}
    print(f"machine: {before}; PyTorch runs once per OpenBLAS build and kernel choice (the kernels OpenBLAS "
          f"runs): {', '.join(f'{n} ({k})' for n, k in kernels.items())}"
          + (f" (not installed: {', '.join(missing)})" if missing else "")
          + f"; the system default is {peer_blas.system_default()}", flush=True)
    meter = roofline.PeakMeter()
    peak = meter.measure(os.cpu_count())
    print(f"FMA peak: {peak['report']}", flush=True)
    if any(c.name.endswith("-mirrored") and (not only or c.name in only) for c in CASES):
        print(markdown_tables.MIRRORED_NOTE, flush=True)
    rows = []
    for case in CASES:
        if only and case.name not in only:
            continue
        ours, theirs, probes, probed = measure_case(case, a, variants, meter)
        flops = roofline.flops_per_sample(roofline.layer_sizes(os.path.join(HERE, "workloads", case.workload + ".json")))
        row = summarise(case, ours, theirs, probes, peak, flops, probed)
        rows.append(row)
        print(markdown_tables.console_line(row), flush=True)
    peak = roofline.best_of(peak, meter.measure(os.cpu_count()))  # again at the end: the better counts
    for row in rows:  # shares against the final peak
        with_peak(row, peak)
    after = dict(machine_state(), during=watch.stop())
    print(f"machine after: {after}", flush=True)
    report = dict(when=time.strftime("%Y-%m-%d %H:%M:%S"), cores=os.cpu_count(), machine_before=before,
                  machine_after=after, blas_builds=builds, peer_variants=list(variants), peer_kernels=kernels, blas_missing=missing,
                  system_blas=peer_blas.system_default(),
                  peak=peak, rows=rows)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=2)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(markdown_tables.render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
