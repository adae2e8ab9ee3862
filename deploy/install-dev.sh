#!/usr/bin/env bash
# Installs everything the table and its tests need on a fresh Debian 12 / Raspberry Pi OS (bookworm),
# as root or as a user with sudo: Mosquitto (used by the tests), Debian's Chromium (display tests),
# Node.js/npm (the display's MQTT client), python3-venv; then a virtual environment in .venv holding
# the package with its test extras (Debian's Python refuses `pip install` outside one: PEP 668), and
# a link /usr/local/bin/smart-table -> .venv/bin/smart-table so `smart-table` works as typed.
# Re-running it is quick: each step is skipped when what it makes is already there and up to date.
#
# Environment: SMART_TABLE_PYTHON  the Python that makes the venv (default: python3 on the PATH)
#              SMART_TABLE_BIN     where the `smart-table` link goes (default /usr/local/bin)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
VENV="$ROOT/.venv"
BIN_DIR="${SMART_TABLE_BIN:-/usr/local/bin}"
say() { echo "install-dev: $*"; }
die() { echo "install-dev: $*" >&2; exit 1; }

SUDO=""
if [ "$(id -u)" != "0" ]; then
  command -v sudo >/dev/null 2>&1 || die "not root and sudo is missing: run this as root, or install sudo and add yourself to the sudo group."
  SUDO="sudo"
fi

PY="${SMART_TABLE_PYTHON:-python3}"
command -v "$PY" >/dev/null 2>&1 || die "$PY not found: install Python 3.11 or newer (apt-get install python3)."
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || die "$("$PY" -V 2>&1) is too old: the table needs Python 3.11 or newer (Debian 12 has it)."

# -- system packages (apt), only those missing ---------------------------------------------------------
need=()
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || need+=(mosquitto)
command -v mosquitto_passwd >/dev/null 2>&1 || need+=(mosquitto-clients)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
# The venue store's tests start a throwaway PostgreSQL cluster with Debian's initdb/pg_ctl.
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
# Debian splits venv's pip bootstrap into python3-venv; only Debian's own Python needs it.
if [ ! -x "$VENV/bin/python" ] && ! "$PY" -c 'import ensurepip, venv' >/dev/null 2>&1; then
  case "$(command -v "$PY")" in
    /usr/bin/*|/bin/*) need+=(python3-venv) ;;
    *) die "$PY has no venv/ensurepip module: use a Python that has, or SMART_TABLE_PYTHON=/usr/bin/python3." ;;
  esac
fi
if [ ${#need[@]} -gt 0 ]; then
  say "apt-get install ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
# Debian starts mosquitto as a service on install; the tests start their own brokers on free ports.

# -- the virtual environment -----------------------------------------------------------------------------
# An existing venv is kept (a re-run with another python3 first on the PATH changes nothing); it is made
# again when its Python is gone or too old, or when SMART_TABLE_PYTHON names another Python.
venv_ok() { "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; }
same_python() {
  [ "$("$VENV/bin/python" -c 'import sys; print(sys.base_prefix, sys.version_info[:2])' 2>/dev/null)" \
    = "$("$PY" -c 'import sys; print(sys.base_prefix, sys.version_info[:2])')" ]
}
if ! venv_ok || { [ -n "${SMART_TABLE_PYTHON:-}" ] && ! same_python; }; then
  say "making the virtual environment $VENV with $(command -v "$PY") ($("$PY" -V 2>&1))"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
fi
# pip runs only when pyproject.toml or the tested versions changed since the last install (or the install
# is broken). deploy/constraints.txt pins every package to the version the suite passed with (`-c`).
CONSTRAINTS="$ROOT/deploy/constraints.txt"
[ -f "$CONSTRAINTS" ] || die "$CONSTRAINTS is missing: check out the whole repository (it pins the tested versions)."
stamp="$VENV/.smart-table-installed"
want_stamp="$(cat pyproject.toml "$CONSTRAINTS" | sha256sum | cut -d' ' -f1) $ROOT"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want_stamp" ] || [ ! -x "$VENV/bin/smart-table" ] \
   || ! (cd / && env -u PYTHONPATH "$VENV/bin/python" -c 'import smart_table.main, pytest' >/dev/null 2>&1); then
  say "installing the package and its test extras into $VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  # setuptools' editable-install warnings are noise here; the whole output is shown when pip fails.
  if ! out="$("$VENV/bin/python" -m pip install -q -c "$CONSTRAINTS" -e '.[test]' 2>&1)"; then
    echo "$out" >&2
    die "pip could not install the package into $VENV (output above); check the network and run this again."
  fi
  echo "$want_stamp" > "$stamp"
fi

# -- `smart-table` on the PATH -----------------------------------------------------------------------------
link="$BIN_DIR/smart-table"
if [ "$(readlink "$link" 2>/dev/null)" != "$VENV/bin/smart-table" ]; then
  [ -e "$link" ] && [ ! -L "$link" ] && say "replacing $link (not a link) with a link to this checkout"
  $SUDO mkdir -p "$BIN_DIR"
  $SUDO ln -sfn "$VENV/bin/smart-table" "$link"
  say "$link -> $VENV/bin/smart-table"
fi

# -- npm parts (from the npm registry at install time, never committed) ------------------------------
npm_install() {  # folder; skipped when node_modules is newer than package-lock.json / package.json
  local dir="$1"
  [ -f "$dir/package.json" ] || return 0
  local mark="$dir/node_modules/.package-lock.json"
  if [ -f "$mark" ] && [ "$mark" -nt "$dir/package.json" ] && { [ ! -f "$dir/package-lock.json" ] || [ "$mark" -nt "$dir/package-lock.json" ]; }; then
    return 0
  fi
  say "npm install in $dir"
  (cd "$dir" && npm install --no-audit --no-fund --silent)
  touch "$mark"  # npm leaves it alone when nothing changed; the next run then skips at once
}
# The display's MQTT client.
npm_install controller/web
# MicroPython (WebAssembly port) runs the reference firmware's protocol code in the tests.
npm_install firmware_bridge/firmware/mpy_host
say "done: run \`smart-table run --simulate\`, or the tests with \`.venv/bin/python -m pytest\`"
