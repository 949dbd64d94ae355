#!/usr/bin/env bash
# Builds tests/bench/packed_product_ab.cpp with the working tree's engine/src/model/packed_product.cpp
# and the same file at REV (default HEAD) with REV's engine/src/model headers, its namespace renamed,
# and runs it: one JSON line per W1 and W3 product (the weight gradients with the SGD step fused, as
# the engine runs them), the median GFLOP/s of each version alternated in one process, their ratio
# and in how many rounds the working tree's was the faster.
# Usage: bash tests/bench/packed_product_ab.sh [REV] [rounds, default 41] [products|steps|all]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$(dirname "$here")")
rev=${1:-HEAD}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The base's product and the headers beside it (its micro-kernels and packing) as they were at REV,
# found before the working tree's.
mkdir -p "$out/base/model"
git -C "$root" show "$rev:engine/src/model/packed_product.cpp" > "$out/base/packed_product_base.cpp"
for header in $(git -C "$root" ls-tree --name-only "$rev" engine/src/model/ | grep '\.hpp$'); do
    git -C "$root" show "$rev:$header" > "$out/base/model/$(basename "$header")"
done
flags=(-std=c++20 -O3 -march=native -fopenmp -DNDEBUG -I"$root/engine/src" -I"$root/engine/include" -I/usr/include/eigen3)
g++ -I"$out/base" "${flags[@]}" -Ddistlab=distlab_base -c "$out/base/packed_product_base.cpp" -o "$out/base.o"
g++ "${flags[@]}" -c "$root/engine/src/model/packed_product.cpp" -o "$out/now.o"
g++ "${flags[@]}" "$here/packed_product_ab.cpp" "$out/base.o" "$out/now.o" -o "$out/packed_product_ab"
"$out/packed_product_ab" "${2:-41}" "${3:-all}"
