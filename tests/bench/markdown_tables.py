"""Turns compare_pytorch.py's report into a console line per case and Markdown tables for
RESULTS.md and the README, so no figure there is typed by hand."""


def _n(x):
    return f"{x:,.0f}"


def _lib(files):
    """'openblas-openmp' from the mapped libopenblas file's folder."""
    names = sorted({f.split("/")[-2] for f in files if "openblas" in f.split("/")[-1] or "libblas" in f})
    return "+".join(names) or "none seen"


# The mirrored cases are not like for like, wherever their figures are shown.
MIRRORED_NOTE = ("The -mirrored cases compare DistLab's replicas, threads of one process reducing through shared "
                 "memory, with PyTorch DDP's ranks, processes exchanging gradients through Gloo: not like for like "
                 "until DistLab runs its replicas in processes.")


def console_line(row):
    peers = "  ".join(f"{v} {_n(p['median'])}" for v, p in row["peers"].items())
    share, sustained = row["share_of_peak"], row["share_of_sustained"]
    return (f"{row['case']:12s} {row['metric']:16s} DistLab {_n(row['distlab_median']):>9s}  PyTorch {peers}"
            f"  -> ratio {row['ratio']:5.2f}x vs {row['best_peer']} (target >= {row['target']}x: "
            f"{'met' if row['met'] else 'NOT met'})  peak share {share['distlab']:.0%} / {share['pytorch']:.0%}"
            f"  sustained share {sustained['distlab']:.0%} / {sustained['pytorch']:.0%}"
            + (f"  DistLab beside its steps {row['beside_steps']['share_median']:.0%}" if "beside_steps" in row else ""))


def render(report):
    rows = report["rows"]
    out = [f"Run of {report['when']}; machine before {report['machine_before']}, after {report['machine_after']}.",
           "Peer variants (OpenBLAS build, +forced kernel type; the kernels OpenBLAS ran): "
           + ", ".join(f"{v} ({report.get('peer_kernels', {}).get(v, '?')})" for v in report["peer_variants"])
           + (f"; not installed: {', '.join(report['blas_missing'])}" if report["blas_missing"] else "")
           + f"; system default {report['system_blas']}.", "",
           f"FMA peak (`tests/bench/fma_peak.cpp`, GFLOP/s, at the start and at the end; the better of each "
           f"counts): {report['peak']['report']}", "",
           "| case | DistLab (product path, BLAS mapped (its kernels), most OS threads) | PyTorch at its best (variant) | ratio | target | met |",
           "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        out.append(f"| {r['case']} {r['metric'].replace('_per_sec', '/s')} | {_n(r['distlab_median'])} "
                   f"({', '.join(r.get('distlab_matrix_product', ['?']))}, {_lib(r['distlab_blas_loaded'])} "
                   f"({', '.join(r.get('distlab_openblas_kernels', ['?']))}), "
                   f"{r['distlab_os_threads_max']}) | "
                   f"{_n(r['pytorch_median'])} ({r['best_peer']}) | {r['ratio']:.2f}× | ≥ {r['target']}× | "
                   f"{'yes' if r['met'] else 'no'} |")
    if any(r["case"].endswith("-mirrored") for r in rows):
        out += ["", MIRRORED_NOTE]
    out += ["", "Every run (DistLab; the peer per OpenBLAS build, with the library its processes mapped, "
            "torch.get_num_threads() and the most OS threads one peer process had):", "",
            "| case | DistLab runs | peer build | peer runs | peer median | mapped | torch threads | OS threads |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        for i, (variant, p) in enumerate(r["peers"].items()):
            ours = " / ".join(_n(x) for x in r["distlab_runs"]) if i == 0 else ""
            out.append(f"| {r['case'] if i == 0 else ''} | {ours} | {variant} | {' / '.join(_n(x) for x in p['runs'])} | "
                       f"{_n(p['median'])} | {_lib(p['blas_loaded'])} | {','.join(map(str, p['torch_threads']))} | "
                       f"{p['os_threads_max']} |")
    out += ["", "Roofline (GFLOP/s executed = 6 × weights − 2 × first layer, per sample; nominal = 6 × weights; "
            "peak = the best round of fma_peak.cpp on the cores the case uses, at the start or the end of the run; "
            "sustained = the median of the FMA rates those cores sustained over 1 s just before and just after "
            "each DistLab run; each share = executed / that ceiling):", "",
            "| case | cores | peak | sustained (each probe) | DistLab executed (nominal) | of peak | of sustained | "
            "PyTorch executed (nominal) | of peak | of sustained |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        d, p = r["gflops"]["distlab"], r["gflops"]["pytorch"]
        peak, sustained = r["share_of_peak"], r["share_of_sustained"]
        out.append(f"| {r['case']} | {r['cores']} | {r['peak_gflops']:.1f} | {r['sustained_gflops']:.1f} "
                   f"({' / '.join(f'{x:.0f}' for x in r['sustained_probes'])}) | {d['executed']:.1f} ({d['nominal']:.1f}) | "
                   f"{peak['distlab']:.0%} | {sustained['distlab']:.0%} | {p['executed']:.1f} ({p['nominal']:.1f}) | "
                   f"{peak['pytorch']:.0%} | {sustained['pytorch']:.0%} |")
    beside = [r for r in rows if "beside_steps" in r]
    if beside:
        out += ["", "DistLab against the FMA rate of the same moments (one more run per repeat with `distlab-cli bench "
                "--fma-probe`: a 0.1-ms FMA burst after each step on the case's cores, left out of the throughput; "
                "share = executed GFLOP/s / the bursts' rate):", "",
                "| case | runs (samples/s) | executed GFLOP/s | FMA beside the steps (best burst) | share | median share |",
                "| --- | --- | --- | --- | --- | --- |"]
        for r in beside:
            runs = r["beside_steps"]["runs"]
            each = lambda text: " / ".join(text(x) for x in runs)  # noqa: E731
            samples = each(lambda x: _n(x["samples_per_sec"]))
            achieved = each(lambda x: format(x["gflops"], ".1f"))
            fma = each(lambda x: format(x["fma_gflops"], ".1f") + " (" + format(x["fma_best_gflops"], ".0f") + ")")
            shares = each(lambda x: format(x["share"], ".0%"))
            out.append(f"| {r['case']} | {samples} | {achieved} | {fma} | {shares} | {r['beside_steps']['share_median']:.0%} |")
    return "\n".join(out) + "\n"
