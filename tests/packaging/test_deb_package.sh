#!/usr/bin/env bash
# Builds the Debian package of a configured, built tree with `cpack -G DEB` (into a temporary
# directory, never the source or build tree) and checks it as a desktop user would get it: its file
# name and control fields, Depends computed from the binaries (and covering every library they
# load), its contents, the desktop entry and AppStream metainfo (validated), the man pages (render
# without warnings, document every option the programs' --help lists), and the unpacked programs
# (--version, a short training run of every example, the app started offscreen).
#
#   bash tests/packaging/test_deb_package.sh BUILD_DIR SOURCE_DIR [CPACK]
#
# BUILD_DIR must be built: cpack packages what is there and builds nothing (a man page older than
# its source fails the check). ctest registers this as `deb_package` (label packaging).
# The package may be built with -march=native (DISTLAB_NATIVE) or with CUDA: it runs the binaries on
# the machine that built them, and with CUDA checks that the CUDA backend is a module in the package
# that the programs do not link and that Depends does not name the CUDA libraries.
set -euo pipefail

readonly APP_ID="io.github.distlab.DistLab"  # desktop file, icon and AppStream id (cmake/DistlabPackaging.cmake)
readonly COMMANDS=(train bench varlab validate devices collectives compare equivalence export-pytorch export-tensorflow)

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
ok() { printf 'ok: %s\n' "$*"; }

(($# >= 2)) || { echo "usage: bash $0 BUILD_DIR SOURCE_DIR [CPACK]" >&2; exit 2; }
build_dir="$(cd "$1" && pwd)"
source_dir="$(cd "$2" && pwd)"
cpack="${3:-cpack}"
[[ -f "$build_dir/CPackConfig.cmake" ]] || fail "$build_dir has no CPackConfig.cmake: configure it with CMake first"

for tool in "$cpack" dpkg dpkg-deb dpkg-shlibdeps desktop-file-validate appstreamcli readelf ldd gzip python3; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is not installed (bash packaging/setup-debian.sh installs what is needed)"
done
if command -v groff >/dev/null 2>&1; then
  render_man() { groff -man -ww -z -Tascii "$1" 2>&1; }               # warnings only (-z: no output)
  man_text() { groff -man -Tascii -P-cbou -rLL=500n "$1" 2>/dev/null; }  # plain text, long lines
elif command -v man >/dev/null 2>&1; then
  render_man() { { man --warnings -l "$1" >/dev/null; } 2>&1; }
  man_text() { MANWIDTH=200 MAN_KEEP_FORMATTING='' man -l "$1" 2>/dev/null | sed 's/.\x08//g'; }
else
  fail "neither groff nor man is installed (bash packaging/setup-debian.sh installs groff-base)"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/distlab-deb-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export LC_ALL=C.UTF-8

# --- Build the package -----------------------------------------------------------------------------
version="$(sed -nE 's/^project\(DistLab VERSION ([0-9][0-9.]*).*/\1/p' "$source_dir/CMakeLists.txt")"
[[ -n "$version" ]] || fail "cannot read the version from project(... VERSION ...) in $source_dir/CMakeLists.txt"
arch="$(dpkg --print-architecture)"
expected_name="distlab_${version}_${arch}.deb"

started=$SECONDS
if ! (cd "$build_dir" && "$cpack" -G DEB -B "$work/out") >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log" >&2
  fail "cpack -G DEB failed in $build_dir"
fi
shopt -s nullglob
debs=("$work"/out/*.deb)
shopt -u nullglob
((${#debs[@]} == 1)) || { cat "$work/cpack.log" >&2; fail "expected one .deb in the cpack output, found ${#debs[@]}"; }
deb="${debs[0]}"
[[ "$(basename "$deb")" == "$expected_name" ]] || fail "package file is $(basename "$deb"), expected $expected_name"
ok "cpack -G DEB made $expected_name ($(($(stat -c %s "$deb") / 1024)) KiB, $((SECONDS - started)) s)"

# --- Control fields --------------------------------------------------------------------------------
field() { dpkg-deb -f "$deb" "$1"; }
[[ "$(field Package)" == distlab ]] || fail "Package is '$(field Package)', expected distlab"
[[ "$(field Version)" == "$version" ]] || fail "Version is '$(field Version)', expected $version"
[[ "$(field Architecture)" == "$arch" ]] || fail "Architecture is '$(field Architecture)', expected $arch"
[[ "$(field Maintainer)" =~ ^[^\<]+\ \<[^@\>]+@[^\>]+\>$ ]] || fail "Maintainer '$(field Maintainer)' is not 'Name <email>'"
[[ -n "$(field Section)" ]] || fail "no Section"
description="$(field Description)"
(($(wc -l <<<"$description") >= 3)) || fail "the Description has no long description: $description"
homepage="$(field Homepage)"
[[ "$homepage" =~ ^https:// ]] || fail "Homepage '$homepage' is not an https URL"
depends="$(field Depends)"
[[ -n "$depends" ]] || fail "no Depends: dpkg-shlibdeps did not run (CPACK_DEBIAN_PACKAGE_SHLIBDEPS)"
[[ ", $depends," =~ ,\ libc6[\ ,] ]] || fail "Depends does not name libc6: $depends"
[[ ", $depends," =~ ,\ libqt6[a-z0-9-]+[\ ,] ]] || fail "Depends does not name a libqt6 package: $depends"
# The CUDA backend module's libraries come from NVIDIA's toolkit, not from Debian: Depends must not
# need them, so the package installs where they are absent.
if grep -qiE 'cuda|cublas|nccl' <<<"$depends"; then fail "Depends names a CUDA library: $depends"; fi
ok "control fields (Depends: $depends)"

# --- Contents --------------------------------------------------------------------------------------
dpkg-deb -c "$deb" >"$work/contents.txt" || fail "dpkg-deb -c cannot list $deb"
awk '{print $6}' "$work/contents.txt" >"$work/paths.txt"
required=(
  ./usr/bin/distlab ./usr/bin/distlab-cli ./usr/bin/distlab-worker
  "./usr/share/applications/$APP_ID.desktop"
  "./usr/share/icons/hicolor/scalable/apps/$APP_ID.svg"
  "./usr/share/metainfo/$APP_ID.metainfo.xml"
  ./usr/share/man/man1/distlab.1.gz ./usr/share/man/man1/distlab-cli.1.gz ./usr/share/man/man1/distlab-worker.1.gz
)
examples=()
for example in "$source_dir"/resources/examples/*.json; do
  examples+=("$(basename "$example")")
  required+=("./usr/share/distlab/examples/$(basename "$example")")
done
((${#examples[@]} > 0)) || fail "no examples in $source_dir/resources/examples"
for lesson in "$source_dir"/resources/lessons/*.lesson.json; do
  required+=("./usr/share/distlab/lessons/$(basename "$lesson")")
done
# The CUDA backend module, where this build made one (engine/libdistlab-cuda.so), in the package's
# lib folder, where the programs look for it relative to themselves.
gpu_module=""
if [[ -f "$build_dir/engine/libdistlab-cuda.so" ]]; then
  gpu_module="$(grep -E '/distlab/libdistlab-cuda\.so$' "$work/paths.txt" || true)"
  [[ "$gpu_module" == ./usr/lib/*distlab/libdistlab-cuda.so ]] || fail "the package lacks the CUDA backend module in usr/lib/.../distlab"
  gpu_module="${gpu_module#.}"
fi
for path in "${required[@]}"; do
  grep -qxF -- "$path" "$work/paths.txt" || fail "the package lacks $path"
done
if grep -vE '^\./(usr/((bin|share)(/.*)?|lib(/[a-z0-9_-]+)?(/distlab(/libdistlab-cuda\.so)?)?/?)?)?$' "$work/paths.txt" >"$work/stray.txt"; then
  fail "the package installs outside /usr/bin, /usr/share and the CUDA module's folder: $(tr '\n' ' ' <"$work/stray.txt")"
fi
if awk '$2 != "root/root"' "$work/contents.txt" | grep -q .; then
  fail "files not owned by root/root: $(awk '$2 != "root/root" {print $6}' "$work/contents.txt" | tr '\n' ' ')"
fi
ok "contents: ${#required[@]} required files, ${#examples[@]} examples${gpu_module:+, $gpu_module}, nothing elsewhere"

root="$work/root"
dpkg-deb -x "$deb" "$root" || fail "dpkg-deb -x cannot unpack $deb"
bin="$root/usr/bin"

# --- Every library the binaries load: from a package named in Depends (or named in the description) -
for program in distlab distlab-cli distlab-worker; do
  [[ -x "$bin/$program" ]] || fail "usr/bin/$program is not executable"
  ldd "$bin/$program" >"$work/ldd.txt" 2>&1 || fail "ldd usr/bin/$program failed: $(cat "$work/ldd.txt")"
  if grep -q 'not found' "$work/ldd.txt"; then fail "usr/bin/$program: $(grep 'not found' "$work/ldd.txt" | tr -s ' \t' ' ')"; fi
  while read -r soname; do
    # "libx.so.1 => /path/libx.so.1 (0x...)", or for the dynamic loader "/lib64/ld-linux-x86-64.so.2 (0x...)"
    path="$(awk -v lib="$soname" '($1 == lib && $2 == "=>") {print $3; exit}
      substr($1, length($1) - length(lib)) == "/" lib {print $1; exit}' "$work/ldd.txt")"
    [[ -n "$path" ]] || fail "usr/bin/$program needs $soname, which ldd does not resolve"
    owner=""
    for candidate in "$path" "$(readlink -f "$path")" "${path#/usr}" "/usr$path"; do
      owner="$(dpkg -S "$candidate" 2>/dev/null | head -n1 | cut -d: -f1)" && [[ -n "$owner" ]] && break
    done
    if [[ -z "$owner" ]]; then
      # Not from a Debian package (e.g. the CUDA runtime under /usr/local/cuda): dpkg-shlibdeps
      # cannot depend on it, so the description must tell the person installing the package.
      grep -qF "$soname" <<<"$description" ||
        fail "usr/bin/$program needs $soname ($path), which no Debian package provides, and the package description does not say so"
      echo "note: usr/bin/$program needs $soname from $path (no Debian package; the description says so)"
    elif ! [[ ", $depends," =~ [\ ,|]${owner//+/\\+}[\ ,:] ]]; then
      fail "usr/bin/$program needs $soname from package $owner, which Depends does not name: $depends"
    fi
  done < <(readelf -d "$bin/$program" | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p')
done
ok "every library the binaries need comes from a package in Depends"

# --- The CUDA backend loads from the package, and only when asked ---------------------------------
for program in distlab distlab-cli; do
  if readelf -d "$bin/$program" | grep -qE 'NEEDED.*\[lib(cudart|cublas|cublasLt|nccl)\.'; then
    fail "usr/bin/$program links a CUDA library: it must load the CUDA backend module only for GPUs"
  fi
done
if [[ -n "$gpu_module" ]]; then
  "$bin/distlab-cli" devices >"$work/devices.json" 2>&1 || fail "distlab-cli devices failed: $(cat "$work/devices.json")"
  python3 - "$work/devices.json" "$root$gpu_module" <<'EOF' || fail "distlab-cli devices does not report the package's CUDA backend module"
import json, os, sys
backend = json.load(open(sys.argv[1]))["gpu_backend"]
# Loaded where the CUDA libraries are installed; elsewhere the reason names the module and the loader's error.
ok = os.path.realpath(backend["module"] or "") == os.path.realpath(sys.argv[2]) and (backend["loaded"] or "could not be loaded" in backend["error"])
print("gpu_backend:", backend, file=sys.stdout if ok else sys.stderr)
sys.exit(0 if ok else 1)
EOF
  ok "distlab-cli devices finds the CUDA backend module in the package"
fi

# --- Desktop entry, icon, AppStream metainfo --------------------------------------------------------
desktop="$root/usr/share/applications/$APP_ID.desktop"
desktop-file-validate "$desktop" >"$work/desktop.log" 2>&1 || { cat "$work/desktop.log" >&2; fail "desktop-file-validate rejects $APP_ID.desktop"; }
if grep -qiE 'error|warning' "$work/desktop.log"; then cat "$work/desktop.log" >&2; fail "desktop-file-validate warns about $APP_ID.desktop"; fi
exec_program="$(sed -nE 's/^Exec=([^ ]+).*/\1/p' "$desktop")"
[[ -x "$bin/$exec_program" ]] || fail "the desktop entry runs '$exec_program', which is not in usr/bin"
[[ "$(sed -n 's/^Icon=//p' "$desktop")" == "$APP_ID" ]] || fail "the desktop entry's Icon is not $APP_ID"
ok "desktop-file-validate: $APP_ID.desktop (Exec=$exec_program)"

python3 - "$root/usr/share/icons/hicolor/scalable/apps/$APP_ID.svg" <<'EOF' || fail "the icon is not a well-formed SVG"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
sys.exit(0 if root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("viewBox") else 1)
EOF

metainfo="$root/usr/share/metainfo/$APP_ID.metainfo.xml"
appstreamcli validate --no-net "$metainfo" >"$work/appstream.log" 2>&1 ||
  { cat "$work/appstream.log" >&2; fail "appstreamcli validate --no-net rejects $APP_ID.metainfo.xml"; }
appstreamcli validate-tree --no-net "$root" >"$work/appstream-tree.log" 2>&1 ||
  { cat "$work/appstream-tree.log" >&2; fail "appstreamcli validate-tree --no-net rejects the unpacked package"; }
python3 - "$metainfo" "$APP_ID" "$version" "$homepage" "$source_dir/resources/screenshots" <<'EOF' || fail "the metainfo does not match the package"
import os, sys, xml.etree.ElementTree as ET
path, app_id, version, homepage, shots = sys.argv[1:]
c = ET.parse(path).getroot()
problems = []
if c.findtext("id") != app_id: problems.append(f"<id> is {c.findtext('id')}, expected {app_id}")
if c.findtext("launchable[@type='desktop-id']") != app_id + ".desktop": problems.append("<launchable> does not name the desktop file")
listed = c.findtext("url[@type='homepage']")
if listed != homepage: problems.append(f"homepage {listed} is not the package's {homepage}")
if version not in [r.get("version") for r in c.iterfind("releases/release")]: problems.append(f"no <release version=\"{version}\">")
if c.find("content_rating") is None: problems.append("no <content_rating>")
if not c.findall("categories/category"): problems.append("no <categories>")
images = [i.text.strip() for i in c.iterfind("screenshots/screenshot/image")]
if not images: problems.append("no screenshots")
for url in images:
    if not url.startswith(homepage.rstrip("/") + "/"): problems.append(f"screenshot {url} is not under the homepage {homepage}")
    elif not os.path.isfile(os.path.join(shots, os.path.basename(url))): problems.append(f"screenshot {url}: no {os.path.basename(url)} in resources/screenshots")
for p in problems: print("metainfo:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
ok "appstreamcli validate: $APP_ID.metainfo.xml (release $version, screenshots under $homepage)"

# --- Man pages: compressed, render without warnings, every option documented ------------------------
help_options() { grep -oE -- '--[a-z][a-z-]*' | sort -u; }
check_man_page() {  # NAME ITEMS...: the page renders cleanly and has an entry for each option (or command)
  local name="$1" page="$root/usr/share/man/man1/$1.1.gz" plain="$work/$1.1"
  shift
  gzip -t "$page" || fail "$name.1.gz is not valid gzip"
  ! file "$page" | grep -qE 'was "|last modified' || fail "$name.1.gz stores a name or time stamp (compress with gzip -9n)"
  gzip -dc "$page" >"$plain"
  cmp -s "$plain" "$source_dir/packaging/man/$name.1" ||
    fail "$name.1.gz in the package differs from packaging/man/$name.1: $build_dir is out of date (cmake --build it first)"
  local warnings
  warnings="$(render_man "$plain")" || fail "$name.1 does not render: $warnings"
  [[ -z "$warnings" ]] || fail "$name.1 renders with warnings: $warnings"
  man_text "$plain" >"$plain.txt"
  [[ -s "$plain.txt" ]] || fail "$name.1 renders to nothing"
  local option
  for option in "$@"; do  # an entry: a line that begins with the item ("-h, --help", "--steps N", "train CONFIG")
    grep -qE -- "^ +(-[A-Za-z], )?$option( |,|\$)" "$plain.txt" || fail "$name.1 has no entry for $option (its --help lists it)"
  done
}

"$bin/distlab-cli" --help >"$work/cli-help.txt" 2>&1 || fail "distlab-cli --help failed: $(cat "$work/cli-help.txt")"
cli_options=()
while read -r option; do cli_options+=("$option"); done < <(help_options <"$work/cli-help.txt")
for command in "${COMMANDS[@]}"; do
  grep -qE "^ +$command( |$)" "$work/cli-help.txt" || fail "distlab-cli --help does not list the command $command"
  "$bin/distlab-cli" "$command" --help >"$work/cli-help-$command.txt" 2>&1 ||
    fail "distlab-cli $command --help failed: $(cat "$work/cli-help-$command.txt")"
  while read -r option; do cli_options+=("$option"); done < <(help_options <"$work/cli-help-$command.txt")
done
check_man_page distlab-cli "${COMMANDS[@]}" "${cli_options[@]}"
listed=()  # a command added to distlab-cli must be added to its man page (and to COMMANDS above)
while read -r command; do listed+=("$command"); done < <(sed -nE '/^Subcommands:$/,/^$/s/^ +([a-z][a-z-]*) .*/\1/p' "$work/cli-help.txt")
((${#listed[@]} >= ${#COMMANDS[@]})) || fail "cannot read the commands from distlab-cli --help: $(cat "$work/cli-help.txt")"
for command in "${listed[@]}"; do
  [[ " ${COMMANDS[*]} " == *" $command "* ]] ||
    fail "distlab-cli --help lists a command '$command' that this test (and maybe distlab-cli.1) does not know"
done

"$bin/distlab-worker" --help >"$work/worker-help.txt" 2>&1 || fail "distlab-worker --help failed: $(cat "$work/worker-help.txt")"
worker_options=()
while read -r option; do worker_options+=("$option"); done < <(help_options <"$work/worker-help.txt")
((${#worker_options[@]} >= 10)) || fail "distlab-worker --help lists only: ${worker_options[*]}"
check_man_page distlab-worker "${worker_options[@]}"

QT_QPA_PLATFORM=offscreen "$bin/distlab" --help >"$work/app-help.txt" 2>&1 || fail "distlab --help failed: $(cat "$work/app-help.txt")"
app_options=()
while read -r option; do app_options+=("$option"); done < <(help_options <"$work/app-help.txt")
((${#app_options[@]} >= 5)) || fail "distlab --help lists only: ${app_options[*]}"
check_man_page distlab "${app_options[@]}"
ok "man pages: compressed with gzip -9n, render without warnings, document ${#cli_options[@]} + ${#worker_options[@]} + ${#app_options[@]} options of --help"

# --- The unpacked programs run --------------------------------------------------------------------
out="$("$bin/distlab-cli" --version)" || fail "distlab-cli --version failed"
[[ "$out" == "distlab-cli $version" ]] || fail "distlab-cli --version printed '$out', expected 'distlab-cli $version'"
out="$(QT_QPA_PLATFORM=offscreen "$bin/distlab" --version 2>/dev/null)" || fail "distlab --version failed"
[[ "$out" == *"$version"* ]] || fail "distlab --version printed '$out', expected $version"
ok "--version: distlab-cli $version, $out"

for example in "${examples[@]}"; do
  config="$root/usr/share/distlab/examples/$example"
  if grep -q '"fashion_mnist"' "$config" && [[ ! -d /usr/share/datasets/fashion-mnist ]]; then
    echo "note: $example skipped (it needs Debian's dataset-fashion-mnist, not installed here)"
    continue
  fi
  if [[ "$example" == *.study.json ]]; then
    # A study names its base config relative to itself: it runs from the installed folder too.
    command=compare
    grep -q '"equivalence": *true' "$config" && command=equivalence
    status=0
    timeout 300 "$bin/distlab-cli" "$command" "$config" --quiet >"$work/study.out" 2>"$work/study.err" || status=$?
    ((status == 0)) || fail "distlab-cli $command $example exited $status: $(cat "$work/study.err")"
    ok "distlab-cli $command $example"
    continue
  fi
  status=0
  if grep -q '"cluster"' "$config"; then
    # A cluster's tasks are processes: one installed distlab-worker per worker task, worker 0's
    # summary last (the coordinator's).
    tasks="$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["cluster"]["worker"]))' "$config")"
    pids=()
    for ((task = tasks - 1; task >= 0; task--)); do
      DISTLAB_CLUSTER_TOKEN=0123456789abcdef0123456789abcdef timeout 300 "$bin/distlab-worker" "$config" --task "worker:$task" \
        --steps 20 --quiet >"$work/train-$task.out" 2>"$work/train-$task.err" &
      pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
    ((status == 0)) || fail "distlab-worker $example --steps 20 exited $status: $(cat "$work"/train-*.err)"
    summary="$(tail -n1 "$work/train-0.out")"
    ran="distlab-worker x $tasks"
  else
    timeout 300 "$bin/distlab-cli" train "$config" --steps 20 --quiet >"$work/train.out" 2>"$work/train.err" || status=$?
    ((status == 0)) || fail "distlab-cli train $example --steps 20 exited $status: $(cat "$work/train.err")"
    summary="$(tail -n1 "$work/train.out")"
    ran="distlab-cli train"
  fi
  python3 -c '
import json, math, sys
s = json.loads(sys.argv[1])
sys.exit(0 if s.get("steps") == 20 and isinstance(s.get("final_loss"), float) and math.isfinite(s["final_loss"]) else 1)
' "$summary" || fail "$ran $example: the last line is not a JSON summary of 20 steps: $summary"
  ok "$ran $example --steps 20: $summary"
done

# The app starts offscreen with an unpacked example and quits by itself (settings kept in $work).
status=0
XDG_CONFIG_HOME="$work/config" XDG_RUNTIME_DIR="$work" QT_QPA_PLATFORM=offscreen timeout 120 \
  "$bin/distlab" "$root/usr/share/distlab/examples/spiral-mirrored-4.json" --autostart --quit-after-ms 1500 \
  >"$work/app.log" 2>&1 || status=$?
((status == 0)) || fail "distlab (offscreen) exited $status: $(cat "$work/app.log")"
ok "distlab starts offscreen, trains spiral-mirrored-4.json and quits"

echo "PASS: $expected_name ($((SECONDS - started)) s)"
