#!/usr/bin/python3
"""What the GUI costs the engine, measured in one run.

For W1 and W2 mirrored on 4 logical devices, runs `distlab-cli bench` and the app
(`distlab CONFIG --autostart --quit-after-ms T --report R`, offscreen, drawing every view) alternately,
and prints the throughput with the GUI attached as a fraction of the CLI's (target >= 0.90), the
GUI's drain-and-redraw tick times (target <= 5 ms at 8 replicas), and with --long the resident
memory of a multi-million-step W2 run (target: < 50 MB growth after the first minute).

With --cluster, for W1 and W2 as multi_worker_mirrored on 4 distlab-worker processes of one replica
each, it runs the 4 tasks headless and the app starting and watching the same cluster alternately,
and prints the app's throughput as a fraction of the headless one (target >= 0.90: the GUI's own
overhead below 10 %). Processes on both sides.

  /usr/bin/python3 tests/bench/gui_overhead.py [--build build/release] [--seconds 6] [--repeats 3] [--long] [--cluster]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import compare_processes

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def workload(name, replicas, steps=0):
    config = json.load(open(os.path.join(HERE, "workloads", name + ".json")))
    per_replica = config["data"]["global_batch_size"]
    config["name"] = f"{name.upper()}-mirrored-{replicas}"
    config["strategy"] = {"type": "mirrored", "replicas": replicas}
    config["data"]["global_batch_size"] = per_replica * replicas
    config["data"]["samples"] = per_replica * replicas * 16
    config["threads"] = os.cpu_count()
    config["steps"] = steps
    return config


def write_config(config, folder):
    path = os.path.join(folder, config["name"] + ".json")
    with open(path, "w") as f:
        json.dump(config, f)
    return path


def cli_bench(build, config_path, seconds):
    out = subprocess.run([os.path.join(build, "app", "cli", "distlab-cli"), "bench", config_path, "--seconds", str(seconds),
                          "--warmup-steps", "20"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def gui_run(build, config_path, seconds, folder):
    report = os.path.join(folder, "report.json")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    subprocess.run([os.path.join(build, "app", "gui", "distlab"), config_path, "--autostart",
                    "--quit-after-ms", str(int((seconds + 2) * 1000)), "--report", report],
                   check=True, capture_output=True, text=True, env=env, timeout=seconds + 60)
    return json.load(open(report))


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def long_run(build, folder, steps, seconds):
    """Runs `steps` steps of W2 mirrored-4 under the GUI for at most `seconds`; samples RSS every 5 s."""
    config = workload("w2", 4, steps=steps)
    path = write_config(config, folder)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    report = os.path.join(folder, "long.json")
    process = subprocess.Popen([os.path.join(build, "app", "gui", "distlab"), path, "--autostart",
                                "--quit-after-ms", str(int(seconds * 1000)), "--report", report], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    start = time.time()
    samples = []
    while process.poll() is None:
        time.sleep(5)
        try:
            rss = rss_mb(process.pid)
        except OSError:
            break
        if rss <= 0.0:
            break  # the process has exited (a zombie has no resident set)
        samples.append((time.time() - start, rss))
        if len(samples) % 6 == 0:
            print(f"  t={samples[-1][0]:5.0f}s rss={samples[-1][1]:.1f} MB", flush=True)
    process.wait(timeout=30)
    result = json.load(open(report))
    after_minute = [rss for t, rss in samples if t >= 60]
    growth = (max(after_minute) - after_minute[0]) if after_minute else None
    return samples, growth, int(result["steps"])


def cluster_overhead(a):
    """4 distlab-worker processes headless against the app starting and watching the same 4."""
    worker = os.path.join(a.build, "app", "cli", "distlab-worker")
    workers = 4
    with tempfile.TemporaryDirectory() as folder:
        for name, first in (("W1", 50), ("W2", 1000)):
            path = compare_processes.worker_config(name, folder, workers=workers)
            steps = compare_processes.calibrate(worker, path, first, a.seconds, workers=workers)
            # The app's copy: its own loopback cluster, trained until the app quits.
            config = json.load(open(path))
            config["cluster"] = {"worker": [f"localhost:{compare_processes.free_port()}" for _ in range(workers)]}
            config["steps"] = 0
            gui_path = write_config(dict(config, name=f"{name}-cluster-{workers}"), folder)
            headless, gui = [], []
            for _ in range(a.repeats):
                headless.append(compare_processes.run_workers(worker, path, steps, workers=workers)["steps_per_sec"])
                gui.append(gui_run(a.build, gui_path, a.seconds, folder)["steps_per_sec"])
            ratio = statistics.median(gui) / statistics.median(headless)
            print(f"{name} multi_worker_mirrored, {workers} processes x 1 replica: headless {statistics.median(headless):10,.0f} "
                  f"steps/s  app {statistics.median(gui):10,.0f} steps/s  ratio {ratio:.2f} "
                  f"(target >= 0.90: {'met' if ratio >= 0.9 else 'NOT met'}); runs {[round(x) for x in headless]} / "
                  f"{[round(x) for x in gui]}", flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--long", action="store_true", help="also run W2 for minutes under the GUI and watch memory")
    ap.add_argument("--long-steps", type=int, default=5_000_000)
    ap.add_argument("--long-seconds", type=float, default=240.0)
    ap.add_argument("--cluster", action="store_true", help="only the 4-process cluster: headless tasks against the app watching them")
    a = ap.parse_args()
    if a.cluster:
        return cluster_overhead(a)
    with tempfile.TemporaryDirectory() as folder:
        for name in ("w1", "w2"):
            path = write_config(workload(name, 4), folder)
            cli, gui, ticks = [], [], []
            for _ in range(a.repeats):
                cli.append(cli_bench(a.build, path, a.seconds)["steps_per_sec"])
                report = gui_run(a.build, path, a.seconds, folder)
                gui.append(report["steps_per_sec"])
                ticks.append(report)
            ratio = statistics.median(gui) / statistics.median(cli)
            print(f"{name.upper()} mirrored-4: CLI {statistics.median(cli):10,.0f} steps/s  GUI {statistics.median(gui):10,.0f} steps/s"
                  f"  ratio {ratio:.2f} (target >= 0.90: {'met' if ratio >= 0.9 else 'NOT met'})"
                  f"  tick p95 {statistics.median(t['tick_ms_p95'] for t in ticks):.2f} ms", flush=True)
        path = write_config(workload("w2", 8), folder)
        report = gui_run(a.build, path, a.seconds, folder)
        print(f"W2 mirrored-8 under the GUI: tick p50 {report['tick_ms_p50']:.2f} ms, p95 {report['tick_ms_p95']:.2f} ms, "
              f"max {report['tick_ms_max']:.2f} ms (GUI thread CPU p95 {report['tick_cpu_ms_p95']:.2f} ms, "
              f"max {report['tick_cpu_ms_max']:.2f}); target <= 5 ms", flush=True)
        if a.long:
            # Long enough that the run is still going well after the first minute.
            samples, growth, steps = long_run(a.build, folder, steps=a.long_steps, seconds=a.long_seconds)
            print(f"W2 mirrored-4, {steps:,} steps under the GUI: RSS {samples[0][1]:.1f} MB at {samples[0][0]:.0f} s, "
                  f"{samples[-1][1]:.1f} MB at {samples[-1][0]:.0f} s; growth after the first minute "
                  f"{growth if growth is not None else float('nan'):.1f} MB (target < 50 MB)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
