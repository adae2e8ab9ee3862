#!/usr/bin/env bash
# Re-resolves deploy/constraints.txt (the versions every install gets) to the newest releases that
# pyproject.toml's ranges allow: a throwaway virtual environment in a temporary folder, `pip install -e
# '.[test]'` there without the old pins, then `pip freeze` of it written over the file (its comment kept).
# Needs the network (PyPI). It changes nothing else: then install and run the whole suite, and commit the
# file only when it passes:
#   bash deploy/update-constraints.sh && bash deploy/install-dev.sh && .venv/bin/python -m pytest
#   git diff deploy/constraints.txt      # what moved; say it in the commit message
#
# Environment: SMART_TABLE_PYTHON  the Python to resolve for (default: python3 on the PATH; the table's is
#                                  Debian 12's 3.11)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
OUT="$ROOT/deploy/constraints.txt"
PY="${SMART_TABLE_PYTHON:-python3}"
say() { echo "update-constraints: $*"; }
die() { echo "update-constraints: $*" >&2; exit 1; }

"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
  || die "$PY is missing or older than 3.11: set SMART_TABLE_PYTHON to the Python the table runs."
work="$(mktemp -d /tmp/smart-table-constraints.XXXXXX)"
trap 'rm -rf "$work"' EXIT
"$PY" -m venv "$work/venv" || die "$PY cannot make a virtual environment (apt-get install python3-venv)."
"$work/venv/bin/python" -m pip install -q --upgrade pip >/dev/null 2>&1 || true
say "resolving the newest versions pyproject.toml allows (with $("$PY" -V 2>&1))"
if ! out="$("$work/venv/bin/python" -m pip install -q -e "$ROOT[test]" 2>&1)"; then
  echo "$out" >&2
  die "pip could not resolve the package's dependencies (output above); $OUT is unchanged."
fi
{
  grep '^#' "$OUT" 2>/dev/null || true
  "$work/venv/bin/python" -m pip freeze --exclude-editable | grep -v '^#'
} > "$work/constraints.txt"
mv "$work/constraints.txt" "$OUT"
say "wrote $OUT; now run: bash deploy/install-dev.sh && .venv/bin/python -m pytest"
