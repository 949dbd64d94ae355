#!/usr/bin/env bash
# Runs shellcheck on every shell script of the project (tracked or not, build trees excluded).
#   bash tests/packaging/test_shellcheck.sh [SOURCE_DIR]
set -euo pipefail
source_dir="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
command -v shellcheck >/dev/null 2>&1 ||
  { echo "error: shellcheck is not installed (bash packaging/setup-debian.sh installs it)" >&2; exit 1; }
cd "$source_dir"
scripts=()
while IFS= read -r -d '' script; do scripts+=("$script"); done < <(
  find . -path ./build -prune -o -path ./.git -prune -o -type f \( -name '*.sh' -o -path ./.ci/run \) -print0 | sort -z)
((${#scripts[@]} >= 3)) || { echo "error: found only ${#scripts[@]} shell scripts under $source_dir" >&2; exit 1; }
shellcheck --external-sources "${scripts[@]}"
echo "shellcheck: ${#scripts[@]} scripts clean: ${scripts[*]}"
