#!/usr/bin/python3
"""Soak: DistLab training at full speed for a long time, memory and rate watched (not a CI test).

Runs `distlab-cli train` on a workload (default W1 mirrored-4) for --minutes, reading every 30 s its
resident memory and its step count from the metrics file (published whole about every 10 s), then
the app (offscreen, every view drawing) on W2 mirrored-4 for --minutes, sampling its memory.
Targets: resident memory grows by < 50 MB after the first minute, and the CLI's steps/s in the last
window is within 10 % of its first full window.

  /usr/bin/python3 tests/bench/soak.py [--build build/release] [--minutes 60] [--workload w1] [--replicas 4]
                                       [--only cli|app]

With --only, one of the two runs; two such processes started together soak both in one hour (they
then share the cores, which is stated with the figures). The CLI's samples also carry the process's
CPU seconds, so steps per CPU second shows whether the program itself slowed when the wall rate
moved with other load on the machine.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from gui_overhead import long_run, rss_mb, workload, write_config


def last_step(metrics_path):
    """The step of the last whole line of a metrics file (0 before its first publish)."""
    try:
        with open(metrics_path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 8192))
            lines = f.read().splitlines()
    except OSError:
        return 0
    for line in reversed(lines):
        try:
            return int(json.loads(line)["step"])
        except (ValueError, KeyError):
            continue
    return 0


def cpu_seconds(pid):
    """User + system CPU seconds of a live process (/proc/PID/stat fields 14 and 15)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cli_soak(build, folder, name, replicas, seconds, every=30.0):
    path = write_config(workload(name, replicas, steps=10**12), folder)
    metrics = os.path.join(folder, "soak.jsonl")
    process = subprocess.Popen([os.path.join(build, "app", "cli", "distlab-cli"), "train", path, "--metrics", metrics,
                                "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    start = time.time()
    samples = []  # (seconds, rss MB, steps, cpu seconds)
    while time.time() - start < seconds and process.poll() is None:
        time.sleep(every)
        samples.append((time.time() - start, rss_mb(process.pid), last_step(metrics), cpu_seconds(process.pid)))
        t, rss, steps, cpu = samples[-1]
        print(f"  cli t={t:6.0f}s rss={rss:7.1f} MB steps={steps:,} cpu={cpu:,.0f}s", flush=True)
    process.send_signal(signal.SIGINT)  # exit 130: stops after the current step, publishes the metrics
    out, _ = process.communicate(timeout=120)
    summary = json.loads(out.strip().splitlines()[-1])
    return samples, summary, process.returncode


def window_rates(samples, clock=0):
    """Steps per second between samples, by wall time (clock 0) or by the process's CPU time (clock 3)."""
    return [(b[2] - a[2]) / (b[clock] - a[clock]) for a, b in zip(samples, samples[1:]) if b[clock] > a[clock]]


def soak_cli(a, folder, seconds):
    samples, summary, code = cli_soak(a.build, folder, a.workload, a.replicas, seconds)
    rates = window_rates(samples)
    cpu_rates = window_rates(samples, clock=3)
    later = [sample[1] for sample in samples if sample[0] >= 60]
    growth = max(later) - later[0] if later else float("nan")
    drop = 1 - rates[-1] / rates[1] if len(rates) > 2 else float("nan")
    print(f"CLI {a.workload.upper()} mirrored-{a.replicas}, {a.minutes:g} min: {summary['steps']:,} steps, exit {code}; "
          f"steps/s first window {rates[1] if len(rates) > 1 else float('nan'):,.1f}, last {rates[-1] if rates else float('nan'):,.1f} "
          f"(drop {drop:.1%}, target < 10%); RSS {samples[0][1]:.1f} -> {samples[-1][1]:.1f} MB, growth after the first "
          f"minute {growth:.1f} MB (target < 50 MB)", flush=True)
    if len(cpu_rates) > 2:
        print(f"  steps per CPU second: first window {cpu_rates[1]:,.1f}, last {cpu_rates[-1]:,.1f}, "
              f"min {min(cpu_rates[1:]):,.1f}, max {max(cpu_rates[1:]):,.1f}", flush=True)


def soak_app(a, folder, seconds):
    gui, gui_growth, steps = long_run(a.build, folder, steps=10**12, seconds=seconds)
    print(f"App W2 mirrored-4, {a.minutes:g} min: {steps:,} steps; RSS {gui[0][1]:.1f} -> {gui[-1][1]:.1f} MB, growth after "
          f"the first minute {gui_growth if gui_growth is not None else float('nan'):.1f} MB (target < 50 MB)", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                                     "build", "release"))
    ap.add_argument("--minutes", type=float, default=60.0, help="for each of the CLI and the app")
    ap.add_argument("--workload", default="w1", help="the CLI's workload (its metrics file grows with the step rate)")
    ap.add_argument("--replicas", type=int, default=4)
    ap.add_argument("--only", choices=("cli", "app"), help="run one of the two (default: the CLI, then the app)")
    a = ap.parse_args()
    seconds = a.minutes * 60
    with tempfile.TemporaryDirectory() as folder:
        if a.only != "app":
            soak_cli(a, folder, seconds)
        if a.only != "cli":
            soak_app(a, folder, seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
