#!/usr/bin/env bash
# Runs packaging/setup-debian.sh's install path as on a fresh Debian 12 machine, against stub
# dpkg-query, apt-cache, apt-get and sudo on PATH that answer as Debian does for packages not yet
# installed. CI's machine already has every package, so without this the install branch never runs.
#
#   bash tests/packaging/test_setup_script.sh [SOURCE_DIR]
set -euo pipefail

source_dir="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
script="$source_dir/packaging/setup-debian.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

check() {  # check DESCRIPTION COMMAND...: records a failure instead of stopping
  local description="$1"
  shift
  if "$@"; then
    printf 'PASS: %s\n' "$description"
  else
    printf 'FAIL: %s\n' "$description"
    failures=$((failures + 1))
  fi
}

lacks_match() { ! grep -q "$@"; }  # lacks_match GREP_ARGS...: no line matches

# --- the stubs -------------------------------------------------------------------------------
# State lives in $STUB_STATE: installed/NAME marks an installed package; unknown/NAME a package apt
# has never heard of; no-candidate/NAME one it knows but cannot install; broken/NAME one that
# apt-get "installs" without it ending up installed. apt-get's calls are logged to apt-get.log.
stubs="$work/bin"
mkdir -p "$stubs"
cat >"$stubs/dpkg-query" <<'STUB'
#!/usr/bin/env bash
package="${*: -1}"
if [[ -e "$STUB_STATE/installed/$package" ]]; then
  printf 'install ok installed'
else
  printf 'dpkg-query: no packages found matching %s\n' "$package" >&2
  exit 1
fi
STUB
cat >"$stubs/apt-cache" <<'STUB'
#!/usr/bin/env bash
[[ "$1" == policy ]] || { echo "stub apt-cache: unexpected $*" >&2; exit 64; }
package="$2"
if [[ -e "$STUB_STATE/unknown/$package" ]]; then
  printf 'N: Unable to locate package %s\n' "$package" >&2
  exit 0  # as Debian's apt-cache does: nothing on stdout, status 0
fi
candidate="1.0-1"
[[ -e "$STUB_STATE/no-candidate/$package" ]] && candidate="(none)"
installed="(none)"
[[ -e "$STUB_STATE/installed/$package" ]] && installed="1.0-1"
printf '%s:\n  Installed: %s\n  Candidate: %s\n  Version table:\n' "$package" "$installed" "$candidate"
# A long version table, as a package with many mirrors and pins prints: more than a pipe holds,
# so a reader that stops early (grep -q) makes this writer die of SIGPIPE.
for ((i = 0; i < 4000; i++)); do
  printf '     1.0-%d 500\n        500 http://deb.debian.org/debian bookworm/main amd64 Packages\n' "$i"
done
STUB
cat >"$stubs/apt-get" <<'STUB'
#!/usr/bin/env bash
printf '%s\n' "$*" >>"$STUB_STATE/apt-get.log"
install=0
for argument in "$@"; do
  case "$argument" in
    install) install=1 ;;
    -o) ;;
    -*|*=*) ;;
    *) if ((install)) && [[ ! -e "$STUB_STATE/broken/$argument" ]]; then
         touch "$STUB_STATE/installed/$argument"
       fi ;;
  esac
done
STUB
cat >"$stubs/sudo" <<'STUB'
#!/usr/bin/env bash
exec "$@"
STUB
chmod +x "$stubs"/*

# The script's own package list, read from the script so the test follows it.
mapfile -t packages < <(sed -n '/^readonly PACKAGES=(/,/^)/p' "$script" | sed '1d;$d;s/#.*//' | tr ' ' '\n' | sed '/^$/d')
((${#packages[@]} > 10)) || { echo "FAIL: could not read PACKAGES from $script"; exit 1; }

new_state() {  # a machine with only the named packages installed
  export STUB_STATE="$work/state-$1"
  shift
  rm -rf "$STUB_STATE"
  mkdir -p "$STUB_STATE"/{installed,unknown,no-candidate,broken}
  local package
  for package in "$@"; do touch "$STUB_STATE/installed/$package"; done
}

run_setup() {  # runs the script with the stubs first on PATH; output in $work/out, status in $status
  status=0
  PATH="$stubs:$PATH" bash "$script" --no-build >"$work/out" 2>&1 || status=$?
}

# --- 1. a fresh machine where every package is available -------------------------------------
new_state fresh git cmake
run_setup
check "fresh machine: the script succeeds (status $status)" test "$status" -eq 0
check "fresh machine: apt-get update ran" grep -qx -- '-o DPkg::Lock::Timeout=600 update' "$STUB_STATE/apt-get.log"
install_line="$(grep ' install ' "$STUB_STATE/apt-get.log" || true)"
check "fresh machine: apt-get install never removes anything" grep -q -- '--no-remove' <<<"$install_line"
check "fresh machine: git and cmake, already installed, are not installed again" \
  lacks_match -wE 'git|cmake' <<<"$install_line"
all_installed=1
for package in "${packages[@]}"; do
  [[ -e "$STUB_STATE/installed/$package" ]] || { all_installed=0; echo "  not installed: $package"; }
done
check "fresh machine: every package in the list is installed afterwards" test "$all_installed" -eq 1

# --- 2. a second run: nothing to install, apt-get not called ---------------------------------
rm -f "$STUB_STATE/apt-get.log"
run_setup
check "second run: succeeds" test "$status" -eq 0
check "second run: apt-get is not called" test ! -e "$STUB_STATE/apt-get.log"
check "second run: says everything is installed" grep -q 'packages are already installed' "$work/out"

# --- 3. one package apt does not know, one it cannot install ---------------------------------
new_state missing
touch "$STUB_STATE/unknown/libcli11-dev" "$STUB_STATE/no-candidate/qt6-charts-dev"
run_setup
check "missing packages: the script fails (status $status)" test "$status" -ne 0
check "missing packages: the error names exactly the two missing packages" \
  grep -qx 'error: no installable version of: qt6-charts-dev libcli11-dev .*' "$work/out"
check "missing packages: nothing is installed" lacks_match ' install ' "$STUB_STATE/apt-get.log"

# --- 4. apt-get returns but a package is still not installed ----------------------------------
new_state broken
touch "$STUB_STATE/broken/libeigen3-dev"
run_setup
check "failed install: the script fails (status $status)" test "$status" -ne 0
check "failed install: the error names the package" grep -q 'apt-get did not install: libeigen3-dev' "$work/out"

# --- 5. what each option builds, against stub cmake and ctest (a copy of the script in a scratch
# source tree, so nothing is built and the real build trees are untouched) --------------------
fake_source="$work/source"
mkdir -p "$fake_source/packaging" "$fake_source/tests"
cp "$script" "$fake_source/packaging/setup-debian.sh"
cp "$source_dir/tests/list_skipped.py" "$fake_source/tests/list_skipped.py"
cat >"$stubs/cmake" <<'STUB'
#!/usr/bin/env bash
printf 'cmake %s\n' "$*" >>"$STUB_STATE/build.log"
# A release build "makes" an app that records its launch.
if [[ "$1" == --build && "$3" == release ]]; then
  mkdir -p build/release/app/gui
  printf '#!/usr/bin/env bash\nprintf "launched %%s\\n" "$*" >>"$STUB_STATE/build.log"\n' >build/release/app/gui/distlab
  chmod +x build/release/app/gui/distlab
fi
STUB
# ctest --preset P ... --output-junit F: as a real run with one skipped Qt Test program, in build/P
# (each preset's test "skipped_in_P" skips one function, for want of $STUB_SKIP_REASON).
cat >"$stubs/ctest" <<'STUB'
#!/usr/bin/env bash
printf 'ctest %s\n' "$*" >>"$STUB_STATE/build.log"
preset="" junit=""
while (($#)); do
  case "$1" in
    --preset) preset="$2"; shift ;;
    --output-junit) junit="$2"; shift ;;
  esac
  shift
done
[[ -n "$preset" && -n "$junit" ]] || exit 0
mkdir -p "build/$preset/Testing/Temporary"
cat >"build/$preset/$junit" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="x" tests="2" failures="0" disabled="0" skipped="1">
  <testcase name="passed_in_$preset" classname="passed_in_$preset" time="1" status="run"><system-out>ok</system-out></testcase>
  <testcase name="skipped_in_$preset" classname="skipped_in_$preset" time="1" status="notrun">
    <skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/><system-out>...</system-out></testcase>
</testsuite>
XML
cat >"build/$preset/Testing/Temporary/LastTest.log" <<LOG
1/2 Testing: skipped_in_$preset
1/2 Test: skipped_in_$preset
Output:
----------------------------------------------------------
PASS   : TestStub::initTestCase()
SKIP   : TestStub::needsIt(row) $STUB_SKIP_REASON
   Loc: [stub.cpp(1)]
Totals: 2 passed, 0 failed, 1 skipped, 0 blacklisted, 5ms
<end of output>
Test time =   1.00 sec
LOG
STUB
chmod +x "$stubs/cmake" "$stubs/ctest"
run_option() {  # runs the scratch copy with OPTION(S); output in $work/out, status in $status
  status=0
  PATH="$stubs:$PATH" DISPLAY=:99 bash "$fake_source/packaging/setup-debian.sh" "$@" >"$work/out" 2>&1 || status=$?
}
new_state build-run "${packages[@]}"
run_option --run -- run.json
check "--run: succeeds (status $status)" test "$status" -eq 0
check "--run: builds only the app and the command-line tool" \
  grep -qx 'cmake --build --preset release --target distlab distlab-cli' "$STUB_STATE/build.log"
check "--run: builds nothing else" test "$(grep -c -- '--build' "$STUB_STATE/build.log")" -eq 1
check "--run: runs no test" lacks_match '^ctest' "$STUB_STATE/build.log"
check "--run: launches the app with the arguments after --" grep -qx 'launched run.json' "$STUB_STATE/build.log"
new_state build-test "${packages[@]}"
STUB_SKIP_REASON="no AVX-512 on this CPU" run_option --test
check "--test: succeeds (status $status)" test "$status" -eq 0
check "--test: builds the whole ci tree, tests included" grep -qx 'cmake --build --preset ci' "$STUB_STATE/build.log"
check "--test: runs every test" grep -q '^ctest --preset ci' "$STUB_STATE/build.log"
check "--test: ends with the skipped tests of the three runs and why" \
  test "$(sed -n '/skipped tests$/,$p' "$work/out" | grep -c 'TestStub::needsIt(row): no AVX-512 on this CPU')" -eq 3
check "--test: the list names each skipped test" grep -q '^  skipped_in_tsan ' "$work/out"
check "--test: a passed test is not listed" lacks_match 'passed_in_' "$work/out"
new_state build-test-package "${packages[@]}"
STUB_SKIP_REASON="Fashion-MNIST is not installed (Debian package dataset-fashion-mnist)" run_option --test
check "--test: a skip for want of a Debian package fails the run (status $status)" test "$status" -ne 0
check "--test: ... naming the test and the package" \
  grep -q 'skipped_in_ci: TestStub::needsIt(row): Fashion-MNIST is not installed (Debian package dataset-fashion-mnist)' "$work/out"

if ((failures)); then
  printf '\n--- output of the last run ---\n'
  cat "$work/out"
  printf '%d check(s) failed\n' "$failures"
  exit 1
fi
echo "all setup-script checks passed"
