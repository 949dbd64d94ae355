#!/usr/bin/python3
"""How far the study's step-time predictions (docs/interfaces.md §13.5) fall from the measured steps.

Runs `distlab-cli compare STUDY --predict` on every example study (resources/examples/*.study.json),
`--repeats` times, each run calibrated afresh (DISTLAB_STEP_TIME_CACHE=off), and reports every
prediction's error, predicted / measured - 1 of the mean step, computed here from the table's
step_ms and predicted_step_ms columns: each one, then over all of them and per study the median
of |error|, its 90th percentile (nearest rank) and the worst. Every run counts; none is dropped or
retried. Usage (from the repository root, after building distlab-cli):

  /usr/bin/python3 tests/bench/prediction_accuracy.py [--cli build/release/app/cli/distlab-cli]
      [--repeats 3] [--study resources/examples/X.study.json ...] [--markdown out.md]
"""
import argparse
import csv
import glob
import io
import math
import os
import platform
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def percentile(values, fraction):
    """Nearest-rank percentile of `values` (sorted or not); fraction in (0, 1]."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def median(values):
    ordered = sorted(values)
    n = len(ordered)
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2


def run_study(cli, study):
    """[(variant, measured ms, predicted ms or None, why none)] of one `compare --predict` run."""
    with tempfile.TemporaryDirectory() as folder:
        table = os.path.join(folder, "table.csv")
        env = dict(os.environ, DISTLAB_STEP_TIME_CACHE="off")
        done = subprocess.run([cli, "compare", study, "--predict", "--csv", table, "--quiet"], env=env,
                              capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"error: {cli} compare {study} --predict: exit {done.returncode}\n{done.stderr}")
        with open(table, newline="") as f:
            rows = list(csv.DictReader(f))
    out = []
    for row in rows:
        if row["state"] != "finished":
            sys.exit(f"error: {study}: variant {row['variant']} {row['state']}")
        predicted = row["predicted_step_ms"]
        out.append((row["variant"], float(row["step_ms"]), float(predicted) if predicted else None,
                    "" if predicted else "no prediction (see compare's stderr)"))
    return out


def summary(errors):
    absolute = [abs(e) for e in errors]
    worst = max(errors, key=abs)
    within = sum(1 for a in absolute if a <= 0.25)
    return {"count": len(errors), "median": median(absolute), "p90": percentile(absolute, 0.9), "worst": worst,
            "within_25": within}


def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{model}, {os.cpu_count()} hardware threads, {platform.system()} {platform.release()}; load {load}"


def commit():
    done = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() or "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "app", "cli", "distlab-cli"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--study", action="append", default=[],
                    help="a study file (repeatable); default every resources/examples/*.study.json")
    ap.add_argument("--markdown", default="", help="also write the report as markdown to this file")
    a = ap.parse_args()
    studies = a.study or sorted(glob.glob(os.path.join(ROOT, "resources", "examples", "*.study.json")))
    if not os.access(a.cli, os.X_OK):
        sys.exit(f"error: {a.cli} is not an executable (build distlab-cli, or pass --cli)")

    before = machine()
    results = []  # (study, repeat, variant, measured, predicted, error or None)
    for repeat in range(a.repeats):
        for study in studies:
            name = os.path.basename(study)
            for variant, measured, predicted, why in run_study(a.cli, study):
                error = predicted / measured - 1.0 if predicted is not None else None
                results.append((name, repeat + 1, variant, measured, predicted, error))
                shown = f"{error:+.3f}" if error is not None else why
                print(f"{name:40s} run {repeat + 1}  {variant:34s} measured {measured:9.4f} ms  predicted "
                      f"{predicted if predicted is not None else float('nan'):9.4f} ms  error {shown}", flush=True)
    after = machine()

    errors = [r[5] for r in results if r[5] is not None]
    if not errors:
        sys.exit("error: no prediction was made")
    out = io.StringIO()
    out.write(f"Commit {commit()}; `{' '.join(['prediction_accuracy.py', '--repeats', str(a.repeats)])}`; "
              f"each run calibrated afresh (DISTLAB_STEP_TIME_CACHE=off).\n\n")
    out.write(f"Machine before: {before}.  \nMachine after: {after}.\n\n")
    out.write("Error = predicted / measured − 1 of the mean step; the statistics are of |error|, every "
              "prediction counted (none dropped, none retried).\n\n")
    out.write("| predictions | median abs(error) | 90th percentile | worst | within 25 % |\n| --- | --- | --- | --- | --- |\n")
    s = summary(errors)
    out.write(f"| all {s['count']} | {s['median']:.1%} | {s['p90']:.1%} | {s['worst']:+.1%} | "
              f"{s['within_25']} of {s['count']} |\n")
    for study in studies:
        name = os.path.basename(study)
        own = [r[5] for r in results if r[0] == name and r[5] is not None]
        if own:
            s = summary(own)
            out.write(f"| {name}: {s['count']} | {s['median']:.1%} | {s['p90']:.1%} | {s['worst']:+.1%} | "
                      f"{s['within_25']} of {s['count']} |\n")
    missing = [r for r in results if r[5] is None]
    if missing:
        out.write(f"\nNo prediction for {len(missing)} variant run(s): "
                  + ", ".join(sorted({f'{r[0]} {r[2]}' for r in missing})) + ".\n")
    out.write("\nEvery prediction:\n\n| study | run | variant | measured ms | predicted ms | error |\n"
              "| --- | --- | --- | --- | --- | --- |\n")
    for name, repeat, variant, measured, predicted, error in results:
        out.write(f"| {name} | {repeat} | {variant} | {measured:.4g} | "
                  f"{'' if predicted is None else format(predicted, '.4g')} | "
                  f"{'' if error is None else format(error, '+.1%')} |\n")
    text = out.getvalue()
    print("\n" + text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
