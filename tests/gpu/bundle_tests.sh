#!/usr/bin/env bash
# Packs a build's non-GUI tests (engine, CLI end to end, GPU) with the libraries they load that a
# bare x86-64 Linux machine with only the NVIDIA driver and the CUDA 13 runtime lacks (Qt Core and
# Test, ICU, OpenBLAS's OpenMP build, ...), so a GPU machine that cannot install packages runs them
# as built here; tests/gpu/run_bundle.sh runs them there. The CUDA libraries (cudart, cuBLAS, NCCL)
# are not packed: hundreds of MiB, and the GPU machine has its own.
#   bash tests/gpu/bundle_tests.sh [BUILD_DIR] [BUNDLE]    (defaults: build/ci, build/test-bundle.tar.xz)
set -euo pipefail
source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build_dir="$(cd "${1:-$source_dir/build/ci}" && pwd)"
bundle="$(realpath -m "${2:-$source_dir/build/test-bundle.tar.xz}")"
[[ -x "$build_dir/app/cli/distlab-cli" ]] || { echo "error: $build_dir has no app/cli/distlab-cli: build it first" >&2; exit 1; }
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cd "$build_dir"
# The test programs, the CTest files that name them and the CUDA backend module the programs load
# (from where this build made it), at their places in the build tree.
while IFS= read -r -d '' file; do
  mkdir -p "$stage/build/$(dirname "$file")"
  cp "$file" "$stage/build/$file"
done < <(find . \( -path ./tests/ui -o -path ./ui -o -name CMakeFiles -o -name '*_autogen' \) -prune -o \
  \( -name CTestTestfile.cmake -o -type f -executable \( -path './tests/*/test_*' -o -path ./app/cli/distlab-cli \
     -o -path ./engine/libdistlab-cuda.so \) \) -print0)
# Every library they load but glibc's, the compiler's runtime and CUDA's (whose names are matched
# whole: libicudata would match a bare "cuda").
mkdir -p "$stage/lib"
openblas="$(sed -n 's/^DISTLAB_OPENBLAS_LIBRARY:FILEPATH=//p' CMakeCache.txt)"
[[ -f "$openblas" ]] || { echo "error: the OpenBLAS library this build loads ($openblas) is missing" >&2; exit 1; }
{ find "$stage/build" -type f -executable -print0 | xargs -0 ldd || true; ldd "$openblas"; } 2>/dev/null |
  awk '/=>/ && $3 ~ /^\// {print $3}' | sort -u |
  grep -v -E '/(libc|libm|libdl|libpthread|librt|ld-linux-x86-64|libstdc\+\+|libgcc_s|libcudart|libcublas|libcublasLt|libnccl)\.so' |
  xargs -r cp -L -t "$stage/lib"
cp -L "$openblas" "$stage/lib/"
find "$stage/build" -type f -executable -exec strip --strip-debug {} +
printf 'source_dir=%s\nbuild_dir=%s\nopenblas=%s\ncommit=%s\n' "$source_dir" "$build_dir" "$openblas" \
  "$(git -C "$source_dir" rev-parse --short HEAD 2>/dev/null || echo unknown)" >"$stage/origin"
mkdir -p "$(dirname "$bundle")"
tar -C "$stage" -cf - build lib origin | xz -T0 -6 >"$bundle.partial"
mv "$bundle.partial" "$bundle"
echo "$bundle: $(du -h "$bundle" | cut -f1), $(find "$stage/build" -type f -executable | wc -l) programs, $(find "$stage/lib" -type f | wc -l) libraries"
