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


# OpenBLAS kernel types by the instruction sets they need (/proc/cpuinfo's names), oldest first.
CORETYPE_FLAGS = (
    ("Haswell", {"avx2", "fma"}),
    ("SkylakeX", {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}),
    ("Cooperlake", {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx512_bf16"}),
)


def cpu_coretypes(cpuinfo="/proc/cpuinfo"):
    """The OpenBLAS kernel types this CPU can run: every one whose instruction sets it has. OpenBLAS's
    own pick comes from a table of CPU models that misses newer ones (0.3.21 runs Emerald Rapids on
    its SSE3 Prescott kernels), so the peer is run with each of these forced too."""
    with open(cpuinfo) as f:
        flags = next((set(line.split(":", 1)[1].split()) for line in f if line.startswith("flags")), set())
    return [name for name, needs in CORETYPE_FLAGS if needs <= flags]


def core_name(folder, extra_env):
    """The kernel type OpenBLAS from folder runs on with extra_env (its openblas_get_corename()), as
    a fresh process loading it finds."""
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.update(extra_env)
    code = ("import ctypes, sys; lib = ctypes.CDLL(sys.argv[1]); lib.openblas_get_corename.restype = ctypes.c_char_p; "
            "print(lib.openblas_get_corename().decode())")
    out = subprocess.run(["/usr/bin/python3", "-c", code, os.path.join(folder, "libblas.so.3")], env=env,
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def variants(coretypes):
    """{name: (folder, extra environment, OpenBLAS's kernel type)}: every installed build, each with
    OpenBLAS's own kernel choice ("default") and with each forced OPENBLAS_CORETYPE; "auto" stands for
    every type this CPU can run (cpu_coretypes). A forced type that lands on kernels the build already
    runs in another variant (OpenBLAS's own pick, or a name this version maps to another) is left out."""
    coretypes = [c for t in coretypes for c in (cpu_coretypes() if t == "auto" else [t])]
    found, _ = installed_builds()
    out = {}
    for variant, folder in found.items():
        kept = set()
        for coretype in dict.fromkeys(coretypes):
            extra = {} if coretype == "default" else {"OPENBLAS_CORETYPE": coretype}
            kernels = core_name(folder, extra)
            if kernels in kept:
                continue
            kept.add(kernels)
            out[variant if coretype == "default" else f"{variant}+{coretype}"] = (folder, extra, kernels)
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
