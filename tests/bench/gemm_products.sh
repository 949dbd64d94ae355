#!/usr/bin/env bash
# Builds tests/bench/gemm_products.cpp (with the engine's packed product, on the best kernel this
# CPU has: AVX-512 or AVX2) against OpenBLAS's OpenMP build and runs it on 1 and 2 threads with
# OpenBLAS's kernels of the most capable type this CPU can run (tests/bench/peer_blas.py's
# cpu_coretypes: Cooperlake, SkylakeX or Haswell), as the engine picks them (model/matrix_product.cpp;
# on Zen 4 it picks Haswell: give OPENBLAS_CORETYPE=Haswell there): one JSON line per product and
# thread count, GFLOP/s per way.
# Usage: [OPENBLAS_CORETYPE=TYPE] bash tests/bench/gemm_products.sh [seconds per product and way, default 1]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$(dirname "$here")")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
lib=/usr/lib/x86_64-linux-gnu/openblas-openmp
g++ -std=c++20 -O3 -march=native -fopenmp -DNDEBUG -I"$root/engine/src" -I"$root/engine/include" -I/usr/include/eigen3 \
  -I/usr/include/x86_64-linux-gnu/openblas-openmp "$here/gemm_products.cpp" "$root/engine/src/model/packed_product.cpp" \
  -o "$out/gemm_products" -L"$lib" -Wl,-rpath,"$lib" -lopenblas
coretype=${OPENBLAS_CORETYPE:-$(/usr/bin/python3 -c "import sys; sys.path.insert(0, '$here'); import peer_blas; print((peer_blas.cpu_coretypes() or [''])[-1])")}
for threads in 1 2; do
  OMP_NUM_THREADS=$threads OPENBLAS_CORETYPE=$coretype "$out/gemm_products" "${1:-1}"
done
