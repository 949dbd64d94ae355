"""Runs a PyTorch peer script with a chosen OpenBLAS build and reports what it really loaded.

Debian's torch takes its matrix products from whichever libblas.so.3 the dynamic linker finds.
Each OpenBLAS build installs one under /usr/lib/x86_64-linux-gnu/openblas-<variant>/, so a run is
pinned to a build by putting that folder first on LD_LIBRARY_PATH. Rather than trust the path, the
run's process tree (the peer and, for DDP, its spawned ranks) is watched while it runs: the BLAS
files mapped into each process (/proc/<pid>/maps) and each process's OS thread count
(/proc/<pid>/status) are recorded, so oversubscription shows.
"""
import glob
import json
import os
import subprocess
import time

LIB_DIR = "/usr/lib/x86_64-linux-gnu"
VARIANTS = ("openmp", "pthread", "serial")  # Debian's OpenBLAS builds


def installed_builds():
    """{variant: folder} for each OpenBLAS build that has a libblas.so.3 here, and the missing ones."""
    found, missing = {}, []
    for variant in VARIANTS:
        folder = os.path.join(LIB_DIR, "openblas-" + variant)
        (found.__setitem__(variant, folder) if os.path.exists(os.path.join(folder, "libblas.so.3"))
         else missing.append(variant))
    return found, missing


def system_default():
    """The build the libblas.so.3 alternative points at when no path is forced."""
    return os.path.realpath(os.path.join(LIB_DIR, "libblas.so.3"))


def variants(coretypes):
    """{name: (folder, extra environment)}: every installed build, each with OpenBLAS's own kernel
    choice ("default") and with each forced OPENBLAS_CORETYPE (the engine forces Haswell on Zen 4,
    so the peer is given the same chance)."""
    found, _ = installed_builds()
    out = {}
    for variant, folder in found.items():
        for coretype in coretypes:
            name = variant if coretype == "default" else f"{variant}+{coretype}"
            out[name] = (folder, {} if coretype == "default" else {"OPENBLAS_CORETYPE": coretype})
    return out


def _children(pid):
    try:
        pids = []
        for task in glob.glob(f"/proc/{pid}/task/*/children"):
            with open(task) as f:
                pids += [int(p) for p in f.read().split()]
        return pids
    except OSError:
        return []


def _tree(pid):
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += _children(p)
    return out


def _blas_files(pid):
    try:
        with open(f"/proc/{pid}/maps") as f:
            return {line.split()[-1] for line in f if "blas" in line.split()[-1]}
    except OSError:
        return set()


def _threads(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("Threads:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def watch(cmd, env, timeout):
    """Runs cmd, sampling its process tree twice a second (cheap next to a run of seconds): returns
    (stdout, the BLAS files any process of it mapped, the most OS threads one of them had)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    loaded, threads, deadline = set(), 0, time.time() + timeout
    while proc.poll() is None:
        for pid in _tree(proc.pid):
            loaded |= _blas_files(pid)
            threads = max(threads, _threads(pid))
        if time.time() > deadline:
            proc.kill()
            raise RuntimeError(f"{cmd[0]} timed out")
        time.sleep(0.5)
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err[-2000:]}")
    return out, loaded, threads


def last_json(text):
    return next(json.loads(l) for l in reversed(text.strip().splitlines()) if l.strip().startswith("{"))


def run(script, args, folder, timeout, extra_env=None):
    """Runs /usr/bin/python3 script args with folder's libblas.so.3 first (and extra_env); returns the
    script's last JSON line plus what the watch saw: blas_loaded (files), os_threads_max."""
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)  # only a variant sets it
    env.update(extra_env or {})
    env["LD_LIBRARY_PATH"] = folder + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    out, loaded, threads = watch(["/usr/bin/python3", script] + args, env, timeout)
    result = last_json(out)
    result["blas_loaded"] = sorted(loaded)
    result["os_threads_max"] = threads
    return result
