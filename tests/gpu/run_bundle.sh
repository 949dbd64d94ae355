#!/usr/bin/env bash
# Runs the tests packed by tests/gpu/bundle_tests.sh on another x86-64 Linux machine (a GPU machine
# that cannot install packages), from a checkout of the same commit: every engine, end-to-end and
# GPU test on the CPU's fastest product kernel, the engine's again on the AVX2 kernel where the CPU
# has a wider one, and the device report. The programs were built with their source and build
# folders compiled in (test data, the CLI's path, OpenBLAS's), so those paths are made to lead here:
# links where they are missing, which takes root where their parents are not writable. A command
# after the log runs last with the same libraries, the CLI's path in $DISTLAB_CLI (benchmarks).
#   bash tests/gpu/run_bundle.sh BUNDLE [LOG [COMMAND...]]
set -uo pipefail
bundle="$(realpath "${1:?usage: run_bundle.sh BUNDLE [LOG [COMMAND...]]}")"
log="${2:-/dev/null}"
shift $(($# < 2 ? $# : 2))
checkout="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
unpacked="$(mktemp -d)"
links=()
cleanup() { rm -f "${links[@]}"; rm -rf "$unpacked"; }
trap cleanup EXIT
tar -C "$unpacked" -xJf "$bundle" || { echo "error: $bundle: cannot unpack" >&2; exit 1; }
origin() { sed -n "s/^$1=//p" "$unpacked/origin"; }
source_dir="$(origin source_dir)" build_dir="$(origin build_dir)" openblas="$(origin openblas)" commit="$(origin commit)"
# The paths the programs were built with: the source folder must be this checkout, the build folder
# the unpacked one.
if [[ "$(realpath -m "$source_dir")" != "$checkout" ]]; then
  [[ -e "$source_dir" ]] && { echo "error: $source_dir exists and is not this checkout ($checkout)" >&2; exit 1; }
  mkdir -p "$(dirname "$source_dir")" && ln -s "$checkout" "$source_dir" || exit 1
  links+=("$source_dir")
fi
if [[ -e "$build_dir" && "$(realpath "$build_dir")" != "$(realpath "$unpacked/build")" ]]; then
  echo "error: $build_dir exists here; run from a checkout without that build" >&2
  exit 1
fi
mkdir -p "$(dirname "$build_dir")" && ln -sfn "$unpacked/build" "$build_dir" || exit 1
links=("$build_dir" "${links[@]}")
if [[ ! -f "$openblas" ]]; then mkdir -p "$(dirname "$openblas")" && cp "$unpacked/lib/$(basename "$openblas")" "$openblas" || exit 1; fi
# The CUDA runtime, cuBLAS and NCCL where this machine keeps them (the toolkit, or Python's wheels).
cuda_dirs="$(find /usr /opt \( -name libcudart.so.13 -o -name libcublas.so.13 -o -name libnccl.so.2 \) -printf '%h\n' 2>/dev/null |
  sort -u | paste -sd :)"
export LD_LIBRARY_PATH="$unpacked/lib${cuda_dirs:+:$cuda_dirs}"
ctest_bin="$(command -v ctest || true)"
[[ -n "$ctest_bin" ]] || { echo "error: ctest is not on PATH" >&2; exit 1; }
{
  echo "== the tests of commit $commit"
  lscpu | grep -E '^(Model name|CPU\(s\))'
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
  echo "CUDA libraries from: ${cuda_dirs:-none found}"
  "$build_dir/app/cli/distlab-cli" devices
  # test_cli_help also starts the GUI program, which is not packed.
  echo "== engine, end-to-end and GPU tests, fastest kernel"
  "$ctest_bin" --test-dir "$build_dir" -L 'engine|e2e|gpu' -E '^test_cli_help$' -j "$(nproc)" --timeout 300 --output-on-failure
  status=$?
  echo "== engine tests, AVX2 kernel"
  DISTLAB_MATRIX_PRODUCT=avx2 "$ctest_bin" --test-dir "$build_dir" -L engine -j "$(nproc)" --timeout 300 --output-on-failure
  status=$((status | $?))
  echo "== GPU tests' figures"
  for test in test_cuda_math test_cuda_training test_gpu_trainer; do "$build_dir/tests/gpu/$test" 2>&1 | grep -v -E '^(PASS|QDEBUG|Config|\*)'; done
  if (($# > 0)); then
    echo "== $*"
    DISTLAB_CLI="$build_dir/app/cli/distlab-cli" "$@"
    status=$((status | $?))
  fi
  exit "$status"
} 2>&1 | tee "$log"
