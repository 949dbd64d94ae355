#!/usr/bin/env bash
# Builds the stand-alone benchmark programs of tests/bench with the g++ commands their headers give,
# into a temporary folder, so that a change to the engine headers they include (the micro-kernels,
# the FMA chains) cannot leave them broken until someone next measures with them. Builds only: they
# measure for seconds to minutes, and register_blocks and host_contention need AVX-512 to run.
# Usage: bash tests/bench/build_programs.sh [source root]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
includes=(-I"$root/engine/src" -I"$root/engine/include" -I/usr/include/eigen3)
build() {
    local name=$1
    shift
    echo "building $name"
    g++ "$@" "$root/tests/bench/$name.cpp" -o "$out/$name"
}
# The two AVX-512 programs are built with AVX-512 asked for on top of the machine's own target, so
# they also compile (for an AVX-512 machine to run) where the build machine has none (Zen 3).
avx512=(-mavx512f -mavx512vl -mavx512bw -mavx512dq)
build fma_peak -O3 -pthread -I"$root/engine/src"
build register_blocks -std=c++20 -O3 -march=native "${avx512[@]}" "${includes[@]}"
build host_contention -std=c++20 -O3 -march=native "${avx512[@]}" "${includes[@]}"
echo "all built"
