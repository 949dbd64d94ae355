#!/usr/bin/env bash
# Sets up a Debian 12 machine for DistLab, builds it, and optionally launches the app or runs
# every test. Safe to run again: packages already installed are not touched, builds are incremental.
#
#   bash packaging/setup-debian.sh            install packages, build the app and the CLI (preset "release")
#   bash packaging/setup-debian.sh --run      ... then launch build/release/app/gui/distlab
#   bash packaging/setup-debian.sh --test     install packages, build preset "ci", run every test, then
#                                             the engine/CLI tests and fuzzers under ASan+UBSan (preset
#                                             "asan") and the threaded tests under TSan (preset "tsan"),
#                                             and list the tests that were skipped and why
#   bash packaging/setup-debian.sh --no-build install packages only
set -euo pipefail

readonly PACKAGES=(
  build-essential cmake ninja-build git pkg-config
  qt6-base-dev libqt6opengl6-dev qt6-charts-dev
  libeigen3-dev zlib1g-dev nlohmann-json3-dev libcli11-dev
  xvfb xauth fonts-dejavu-core libgl1-mesa-dev libxkbcommon-dev
  dataset-fashion-mnist python3 python3-torch python3-numpy libopenblas0-openmp
  # the engine's matrix products (OpenBLAS's OpenMP build), and the pthreads build beside it so the
  # benchmarks can measure PyTorch with each (tests/bench/compare_pytorch.py)
  libopenblas-openmp-dev libopenblas0-pthread
  ca-certificates
  # the package and its checks (cpack -G DEB, dpkg-shlibdeps, desktop entry, AppStream, scripts)
  dpkg-dev file desktop-file-utils appstream shellcheck groff-base
  # the sanitizer builds and the fuzzers (presets asan and tsan)
  clang libclang-rt-14-dev libomp-dev
  # the house checks of the ci preset (ctest lint_clang_tidy, lint_clang_format; tests/lint/)
  clang-tidy clang-format
  # training across processes and hosts: Gloo (TCP) carries collectives and parameter-server
  # traffic; its RedisStore rendezvous is tested against a real redis-server; ip netns for the
  # two-host test (docs/cluster.md)
  libgloo-dev libhiredis-dev redis-server iproute2
  # the telemetry a cluster's tasks stream to the app (engine/proto/task_telemetry.proto)
  libprotobuf-dev protobuf-compiler
)
readonly APT_OPTIONS=(-o DPkg::Lock::Timeout=600)
readonly CTEST_JOBS=2  # CI machines have two cores

say() { printf '==> %s\n' "$*"; }
fail() { printf 'error: %s\n' "$*" >&2; exit 1; }

usage() {
  cat <<'USAGE'
usage: bash packaging/setup-debian.sh [--no-build | --run | --test] [-- APP_ARGS...]
  (no option)  install the Debian packages DistLab needs, then configure and build the app and
               the command-line tool (build/release; the tests are built by --test)
  --no-build   install the packages only
  --run        install, build, then launch build/release/app/gui/distlab (APP_ARGS are passed on)
  --test       install, build the "ci" preset (build/ci), then run every test with ctest, and
               list the tests skipped and why
  -h, --help   show this help
Runs as root, or through sudo when not root. Needs Debian 12 (bookworm).
USAGE
}

build=1 run=0 test=0
app_args=()
while (($#)); do
  case "$1" in
    --no-build) build=0 ;;
    --run) run=1 ;;
    --test) test=1 ;;
    -h | --help) usage; exit 0 ;;
    --) shift; app_args=("$@"); break ;;
    *) printf 'error: unknown option "%s"\n' "$1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
if ((!build && (run || test))); then
  printf 'error: --no-build cannot be combined with --run or --test\n' >&2
  exit 2
fi

cd "$(dirname "${BASH_SOURCE[0]}")/.."
readonly SOURCE_DIR="$PWD"

as_root() {
  if ((EUID == 0)); then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    fail "installing packages needs root: run this script as root, or install sudo"
  fi
}

is_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == "install ok installed" ]]
}

# Whether apt can install a version of package $1. The policy is read whole into a variable and
# matched in the shell: piped into `grep -q`, apt-cache dies of SIGPIPE when grep stops reading
# early, and under pipefail that made every available package look unavailable.
has_candidate() {
  local policy
  policy="$(apt-cache policy "$1" 2>/dev/null || true)"
  [[ "$policy" =~ Candidate:\ ([^[:space:]]+) && "${BASH_REMATCH[1]}" != "(none)" ]]
}

install_packages() {
  command -v apt-get >/dev/null 2>&1 || fail "apt-get not found: this script is for Debian 12"
  if [[ -r /etc/os-release ]]; then
    # shellcheck disable=SC1091
    . /etc/os-release
    if [[ "${ID:-}" != debian || "${VERSION_ID:-}" != 12 ]]; then
      say "warning: this script is tested on Debian 12; this is ${PRETTY_NAME:-an unknown system}"
    fi
  fi

  local missing=() package
  for package in "${PACKAGES[@]}"; do
    is_installed "$package" || missing+=("$package")
  done
  if ((${#missing[@]} == 0)); then
    say "all ${#PACKAGES[@]} packages are already installed"
    return
  fi

  say "installing ${#missing[@]} missing package(s): ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTIONS[@]}" update

  local unavailable=()
  for package in "${missing[@]}"; do
    has_candidate "$package" || unavailable+=("$package")
  done
  if ((${#unavailable[@]})); then
    fail "no installable version of: ${unavailable[*]} (is the 'main' component of Debian 12 in /etc/apt/sources.list?)"
  fi

  # --no-remove: never remove an installed package to satisfy these (apt aborts instead).
  as_root env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTIONS[@]}" install -y \
    --no-install-recommends --no-remove "${missing[@]}"

  local still_missing=()
  for package in "${missing[@]}"; do
    is_installed "$package" || still_missing+=("$package")
  done
  ((${#still_missing[@]} == 0)) || fail "apt-get did not install: ${still_missing[*]}"
  say "packages installed"
}

# Installing the pthreads build of OpenBLAS makes it the system's libblas.so.3 (its priority is
# the higher), but on few cores its threads fight PyTorch's own (W3 about 3x slower), so the OpenMP
# build is selected explicitly wherever both are registered.
prefer_openmp_blas() {
  local triplet name group folder current listing
  triplet="$(uname -m)-linux-gnu"
  folder="/usr/lib/$triplet/openblas-openmp"
  for name in libblas.so.3 liblapack.so.3 libopenblas.so.0; do
    group="$name-$triplet"
    listing="$(update-alternatives --query "$group" 2>/dev/null || true)"
    [[ "$listing" == *"Alternative: $folder/$name"* ]] || continue
    current="$(sed -n 's/^Value: //p' <<<"$listing")"
    if [[ "$current" != "$folder/$name" ]]; then
      say "selecting OpenBLAS's OpenMP build for $name"
      as_root update-alternatives --set "$group" "$folder/$name"
    fi
  done
}

# build_preset PRESET [TARGET...]: configures build/PRESET and builds the targets named (all of
# them when none is named).
build_preset() {
  local preset="$1"
  shift
  local targets=()
  (($#)) && targets=(--target "$@")
  say "configuring (cmake --preset $preset, build directory build/$preset)"
  cmake --preset "$preset"
  say "building (cmake --build --preset $preset${targets[*]:+ ${targets[*]}})"
  cmake --build --preset "$preset" "${targets[@]}"
}

run_tests() {
  build_preset ci
  # Each ctest run also writes ctest-junit.xml in its build tree: which tests were skipped, read by
  # tests/list_skipped.py at the end.
  say "running every test (ctest --preset ci -j$CTEST_JOBS)"
  ctest --preset ci -j"$CTEST_JOBS" --output-on-failure --output-junit ctest-junit.xml
  # The engine and CLI tests again under AddressSanitizer + UndefinedBehaviorSanitizer (clang),
  # with the fuzzers run for a short fixed time from their seed corpora.
  build_preset asan
  say "running the engine, CLI and fuzz tests under ASan + UBSan (ctest --preset asan -j$CTEST_JOBS)"
  ctest --preset asan -j"$CTEST_JOBS" --output-junit ctest-junit.xml
  # The tests whose threads share memory (sessions, mirrored replicas, parameter servers, rings).
  say "configuring and building the threaded tests under ThreadSanitizer (build/tsan)"
  cmake --preset tsan
  cmake --build --preset tsan --target distlab_thread_tests
  say "running them (ctest --preset tsan -j$CTEST_JOBS)"
  ctest --preset tsan -j"$CTEST_JOBS" --output-junit ctest-junit.xml
  say "all tests passed (the skipped ones are listed below)"
  # What did not run here, and why (no GPU, no AVX-512, running as root, ...). A test that skipped
  # for want of a Debian package fails the run: every package the tests need is in PACKAGES.
  say "skipped tests"
  python3 "$SOURCE_DIR/tests/list_skipped.py" --fail-on-missing-package \
    "$SOURCE_DIR/build/ci" "$SOURCE_DIR/build/asan" "$SOURCE_DIR/build/tsan"
}

launch_app() {
  local app="$SOURCE_DIR/build/release/app/gui/distlab"
  if [[ ! -x "$app" ]]; then
    fail "the desktop app was not built ($app is missing); the GUI target may not exist yet. The command-line tool is at build/release/app/cli/distlab-cli"
  fi
  if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
    fail "no display (neither DISPLAY nor WAYLAND_DISPLAY is set): start the app from a desktop session with '$app', or take a screenshot headless with: xvfb-run -a '$app' --screenshot distlab.png --quit-after-ms 5000"
  fi
  say "launching $app"
  exec "$app" "${app_args[@]}"
}

install_packages
prefer_openmp_blas
if ((!build)); then
  say "done (--no-build: nothing configured or built)"
  exit 0
fi
if ((test)); then
  run_tests
fi
if ((run || !test)); then
  # Only what a person launches: the app and the command-line tool (about 150 of the release tree's
  # 349 targets are tests), so the first window opens as soon as possible. --test builds the rest.
  build_preset release distlab distlab-cli
  say "build finished: build/release"
fi
if ((run)); then
  launch_app
fi
