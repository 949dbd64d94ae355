#!/usr/bin/env bash
# Builds tests/bench/gemm_paths.cpp once per matrix-product path (Eigen with -march=native, OpenBLAS
# OpenMP build with its own kernel choice and with each kernel type this CPU can run forced (as the
# PyTorch comparison does: tests/bench/peer_blas.py), BLIS OpenMP build, oneDNN,
# the engine's own packed product in engine/src/model/packed_product.cpp)
# and runs each on 1 and 2 threads: one JSON line per run.
# Usage: bash tests/bench/gemm_paths.sh [seconds per workload, default 2]
# Needs, beyond packaging/setup-debian.sh's packages, libblis-openmp-dev and libdnnl-dev (only this
# measurement uses them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
seconds=${1:-2}
lib=/usr/lib/x86_64-linux-gnu
inc=/usr/include/x86_64-linux-gnu
flags=(-O3 -march=native -fopenmp -DNDEBUG)
g++ "${flags[@]}" -DPATH_EIGEN -I/usr/include/eigen3 "$here/gemm_paths.cpp" -o "$out/eigen"
g++ "${flags[@]}" -I"$inc/openblas-openmp" "$here/gemm_paths.cpp" -o "$out/openblas" -L"$lib/openblas-openmp" \
  -Wl,-rpath,"$lib/openblas-openmp" -lopenblas
g++ "${flags[@]}" -I"$inc/blis-openmp" "$here/gemm_paths.cpp" -o "$out/blis" -L"$lib/blis-openmp" \
  -Wl,-rpath,"$lib/blis-openmp" -lblis
g++ "${flags[@]}" -DPATH_DNNL "$here/gemm_paths.cpp" -o "$out/dnnl" -ldnnl
root=$(dirname "$(dirname "$here")")
g++ "${flags[@]}" -std=c++20 -DPATH_PACKED -I"$root/engine/src" -I/usr/include/eigen3 "$here/gemm_paths.cpp" \
  "$root/engine/src/model/packed_product.cpp" -o "$out/packed"
for threads in 1 2; do
  for path in eigen openblas blis dnnl packed; do
    env -u OPENBLAS_CORETYPE OMP_NUM_THREADS=$threads BLIS_NUM_THREADS=$threads "$out/$path" "$path" "$seconds"
  done
  # OpenBLAS with each kernel type forced: the engine sets one from the CPU's instruction sets
  # (model/matrix_product.cpp), since OpenBLAS's own pick can be its SSE3 kernels on a CPU it does not know
  for coretype in $(/usr/bin/python3 -c "import sys; sys.path.insert(0, '$here'); import peer_blas; print(*peer_blas.cpu_coretypes())"); do
    OMP_NUM_THREADS=$threads OPENBLAS_CORETYPE=$coretype "$out/openblas" "openblas+$coretype" "$seconds"
  done
done
