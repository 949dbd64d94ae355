#!/usr/bin/python3
"""DistLab's processes against PyTorch DDP's processes, like for like, in one run (issue 42).

Alternating, `--repeats` times each, medians:
  1. W1 and W2 trained by 2 `distlab-worker` processes (multi_worker_mirrored, local_replicas 1,
     global batch 2 x the per-replica batch, plain SGD lr 0.01, threads 1, OMP_NUM_THREADS=1)
     against ../shared/bench/pytorch_ddp.py --world 2 (DDP over gloo, one thread per rank). The
     peer runs W1 once per installed OpenBLAS build and forced kernel type (peer_blas.py: the
     fastest counts); W2 is dominated by per-step overhead, so it runs on the system's OpenBLAS.
     DistLab's throughput is the summary's samples_per_sec of the coordinator, whose clock starts
     after the join (start-up and rendezvous excluded), over about `--seconds` of steps.
  2. The 16 MB all-reduce on 2 processes: `distlab-cli collectives --backend gloo` against
     ../shared/bench/gloo_allreduce.py --world 2 (its 16 MB row): busbw and time.
  3. Beside them, W1 and W2 as `distlab-cli bench` with mirrored 2 replicas: threads of one
     process, not like for like, for reference.
Goals: W1 >= 1.2x DDP's samples/s, W2 >= 3x DDP's steps/s, 16 MB busbw within 10 % of Gloo's.
Usage (from the repository root, after the release build of distlab-cli and distlab-worker):

  /usr/bin/python3 tests/bench/compare_processes.py --build build/release [--peer-dir ../shared/bench]
      [--seconds 5] [--repeats 3] [--json out.json] [--metrics-profile]
"""
import argparse
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import compare_pytorch  # noqa: E402  (machine_state, QuietWatch)
import peer_blas  # noqa: E402

WORKLOADS = {"W1": ("w1", 256, 8192, "samples_per_sec"), "W2": ("w2", 32, 1024, "steps_per_sec")}
GOALS = {"W1": 1.2, "W2": 3.0}
PEER_KEYS = {"samples_per_sec": "samples_per_s", "steps_per_sec": "steps_per_s"}
MB16 = 16 << 20


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker_config(name, folder, workers=2):
    """The workload as a multi_worker_mirrored run of `workers` workers with one replica each."""
    workload, batch, samples, _ = WORKLOADS[name]
    with open(os.path.join(HERE, "workloads", workload + ".json")) as f:
        config = json.load(f)
    config["strategy"] = {"type": "multi_worker_mirrored", "local_replicas": 1}
    config["data"]["global_batch_size"] = workers * batch
    config["data"]["samples"] = samples
    config["threads"] = 1
    path = os.path.join(folder, f"{name}-workers-{workers}.json")
    with open(path, "w") as f:
        json.dump(config, f)
    return path


def run_workers(worker, config, steps, metrics_folder=None, workers=2):
    """Every task of the run; the coordinator's summary plus what the processes mapped."""
    ports = [free_port() for _ in range(workers)]
    cluster = {"worker": [f"localhost:{p}" for p in ports]}
    token = secrets.token_hex(16)
    procs = []
    for index in range(workers):
        env = dict(os.environ, OMP_NUM_THREADS="1", DISTLAB_CLUSTER_TOKEN=token,
                   TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": "worker", "index": index}}))
        cmd = [worker, config, "--steps", str(steps), "--quiet"]
        if metrics_folder:
            cmd += ["--metrics", os.path.join(metrics_folder, f"worker{index}.jsonl")]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
    loaded, threads = set(), 0
    deadline = time.time() + 300
    while any(p.poll() is None for p in procs):
        for p in procs:
            loaded |= peer_blas._blas_files(p.pid)
            threads = max(threads, peer_blas._threads(p.pid))
        if time.time() > deadline:
            for p in procs:
                p.kill()
            raise RuntimeError("distlab-worker timed out")
        time.sleep(0.2)
    outputs = [p.communicate() for p in procs]
    for p, (_, err) in zip(procs, outputs):
        if p.returncode != 0:
            raise RuntimeError(f"distlab-worker failed ({p.returncode}):\n{err[-2000:]}")
    summary = peer_blas.last_json(outputs[0][0])
    summary["steps_per_sec"] = summary["steps"] / summary["wall_seconds"]
    summary["blas_loaded"] = sorted(loaded)
    summary["os_threads_max"] = threads
    return summary


def calibrate(worker, config, first_steps, seconds, workers=2):
    """The step count that lasts about `seconds` after the join, from a short run."""
    rate = run_workers(worker, config, first_steps, workers=workers)["steps_per_sec"]
    return max(first_steps, int(rate * seconds))


def run_threads(cli, name, seconds):
    """The same workload as mirrored, 2 replicas as threads of one process (distlab-cli bench)."""
    workload, batch, samples, _ = WORKLOADS[name]
    cmd = [cli, "bench", os.path.join(HERE, "workloads", workload + ".json"), "--seconds", str(seconds), "--warmup-steps", "20",
           "--set", "threads=2", "--set", "strategy.type=mirrored", "--set", "strategy.replicas=2",
           "--set", f"data.global_batch_size={2 * batch}", "--set", f"data.samples={samples}"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=120 + 10 * seconds)
    return peer_blas.last_json(out.stdout)


def collectives_gloo(cli):
    out = subprocess.run([cli, "collectives", "--backend", "gloo", "--replicas", "2", "--min-bytes", "16M", "--max-bytes", "16M",
                          "--iters", "50", "--json"], check=True, capture_output=True, text=True, timeout=300)
    row = peer_blas.last_json(out.stdout)
    if row["wrong"] != 0:
        raise SystemExit(f"distlab-cli collectives reported wrong elements: {row}")
    return row


def gloo_peer(peer_dir, seconds):
    out = subprocess.run(["/usr/bin/python3", os.path.join(peer_dir, "gloo_allreduce.py"), "--world", "2", "--seconds", str(seconds)],
                         check=True, capture_output=True, text=True, timeout=900)
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    return next(r for r in rows if r["bytes"] == MB16)


def metrics_profile(worker, config, steps, folder):
    """Where a worker's step goes (docs/interfaces.md §7): means over the steps after the first 10 %."""
    run_workers(worker, config, steps, metrics_folder=folder)
    with open(os.path.join(folder, "worker0.jsonl")) as f:
        lines = [json.loads(line) for line in f]
    kept = lines[len(lines) // 10:]
    keys = ("step_ms", "compute_ms", "optimizer_ms", "comm_ms", "wait_ms")
    return {k: statistics.mean(line[k] for line in kept) for k in keys}


def system_variant(variants):
    """The variant that is the system's own OpenBLAS with its own kernel choice (else the first)."""
    folder = os.path.dirname(peer_blas.system_default())
    return next((n for n, (f, extra, _) in variants.items() if f == folder and not extra), next(iter(variants)))


def median(values):
    return statistics.median(values) if values else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    ap.add_argument("--peer-dir", default=os.path.join(ROOT, "..", "shared", "bench"))
    ap.add_argument("--seconds", type=float, default=5.0, help="timed seconds of each training run")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--coretypes", default="default,auto", help="the peer's OpenBLAS kernel choices for W1 (peer_blas.variants)")
    ap.add_argument("--metrics-profile", action="store_true", help="also one run per workload with --metrics: compute vs comm")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    cli = os.path.join(a.build, "app", "cli", "distlab-cli")
    worker = os.path.join(a.build, "app", "cli", "distlab-worker")

    before = compare_pytorch.machine_state()
    watch = compare_pytorch.QuietWatch()
    variants = peer_blas.variants(a.coretypes.split(","))
    w2_variant = system_variant(variants)
    print(f"machine: {before}; peer for W1 with each of: "
          f"{', '.join(f'{n} ({k})' for n, (_, _, k) in variants.items())}; W2 with {w2_variant}", flush=True)

    folder = tempfile.mkdtemp(prefix="compare-processes-")
    configs = {name: worker_config(name, folder) for name in WORKLOADS}
    steps = {name: calibrate(worker, configs[name], first, a.seconds) for name, first in (("W1", 100), ("W2", 2000))}
    print(f"DistLab steps per run (about {a.seconds} s after the join): {steps}", flush=True)

    ours = {name: [] for name in WORKLOADS}
    threads = {name: [] for name in WORKLOADS}
    peers = {"W1": {v: [] for v in variants}, "W2": {w2_variant: []}}
    coll_ours, coll_peer = [], []
    for repeat in range(a.repeats):  # alternate, so drift on a shared machine hits every side alike
        for name in WORKLOADS:
            ours[name].append(run_workers(worker, configs[name], steps[name]))
            for variant in peers[name]:
                vfolder, extra, _ = variants[variant]
                peers[name][variant].append(peer_blas.run(os.path.join(a.peer_dir, "pytorch_ddp.py"),
                                                          ["--workload", name, "--world", "2", "--seconds", str(a.seconds)],
                                                          vfolder, timeout=300 + 10 * a.seconds, extra_env=extra))
            threads[name].append(run_threads(cli, name, a.seconds))
        coll_ours.append(collectives_gloo(cli))
        coll_peer.append(gloo_peer(a.peer_dir, 2.0))
        print(f"repeat {repeat + 1}/{a.repeats} done; load {os.getloadavg()[0]:.2f}", file=sys.stderr, flush=True)

    rows = {}
    print("\nTraining, 2 processes of one thread each (DistLab: distlab-worker x 2, summary samples_per_sec after the "
          "join; PyTorch: DDP over gloo), medians of", a.repeats)
    for name, (_, _, _, metric) in WORKLOADS.items():
        mine = median([r[metric] for r in ours[name]])
        peer_medians = {v: median([r[PEER_KEYS[metric]] for r in runs]) for v, runs in peers[name].items()}
        best = max(peer_medians, key=peer_medians.get)
        ratio = mine / peer_medians[best]
        thread_median = median([r[metric] for r in threads[name]])
        rows[name] = dict(metric=metric, distlab=mine, distlab_runs=[r[metric] for r in ours[name]], peer=peer_medians,
                          best_peer=best, ratio=ratio, goal=GOALS[name], met=ratio >= GOALS[name], threads_of_one_process=thread_median,
                          distlab_steps=steps[name], distlab_blas=sorted({f for r in ours[name] for f in r["blas_loaded"]}),
                          distlab_os_threads_max=max(r["os_threads_max"] for r in ours[name]),
                          peer_blas=sorted({f for r in peers[name][best] for f in r["blas_loaded"]}),
                          peer_threads_per_rank=sorted({r.get("threads_per_rank") for r in peers[name][best]}),
                          peer_os_threads_max=max(r["os_threads_max"] for r in peers[name][best]))
        unit = "samples/s" if metric == "samples_per_sec" else "steps/s"
        print(f"  {name}: processes: DistLab {mine:.1f} {unit} vs DDP {peer_medians[best]:.1f} ({best}) = {ratio:.2f}x "
              f"(goal >= {GOALS[name]}x: {'met' if ratio >= GOALS[name] else 'NOT met'}); "
              f"threads of one process (distlab-cli bench, mirrored 2): {thread_median:.1f} {unit}")
        print(f"      every peer variant: " + ", ".join(f"{v} {m:.1f}" for v, m in peer_medians.items()))
        print(f"      DistLab mapped {rows[name]['distlab_blas']}, at most {rows[name]['distlab_os_threads_max']} OS threads per "
              f"process; DDP mapped {rows[name]['peer_blas']}, {rows[name]['peer_threads_per_rank']} torch threads per rank, "
              f"at most {rows[name]['peer_os_threads_max']} OS threads")

    ours16 = median([r["busbw_gbps"] for r in coll_ours])
    ours16_us = median([r["time_us"] for r in coll_ours])
    peer16 = median([r["busbw_GBps"] for r in coll_peer])
    peer16_us = median([r["us_per_op"] for r in coll_peer])
    ratio16 = ours16 / peer16
    print(f"\n16 MB all-reduce, 2 processes: DistLab (collectives --backend gloo) busbw {ours16:.3f} GB/s, {ours16_us:.0f} us; "
          f"PyTorch's gloo {peer16:.3f} GB/s, {peer16_us:.0f} us; ratio {ratio16:.2f} (goal within 10 %: "
          f"{'met' if ratio16 >= 0.9 else 'NOT met'})")

    profile = {}
    if a.metrics_profile:
        for name in WORKLOADS:
            profile[name] = metrics_profile(worker, configs[name], steps[name], folder)
            print(f"  {name} worker 0, means after the first 10 % of steps (ms): "
                  + ", ".join(f"{k} {v:.3f}" for k, v in profile[name].items()))

    after = dict(compare_pytorch.machine_state(), during=watch.stop())
    print(f"machine after: {after}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(when=time.strftime("%Y-%m-%d %H:%M:%S"), cores=os.cpu_count(), machine_before=before, machine_after=after,
                           repeats=a.repeats, seconds=a.seconds, variants={n: [v[0], v[1], v[2]] for n, v in variants.items()},
                           training=rows, allreduce16=dict(distlab=coll_ours, peer=coll_peer, ratio=ratio16), profile=profile),
                      f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
