#!/usr/bin/env bash
# Installs everything the table and its tests need on a fresh Debian machine (run as root or with sudo):
# the Mosquitto broker (production broker, used by the tests), Debian's Chromium (display tests),
# Node.js/npm for the display's MQTT client, and the Python package with its test extras.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
need=()
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || need+=(mosquitto)
command -v mosquitto_passwd >/dev/null 2>&1 || need+=(mosquitto-clients)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
if [ ${#need[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
# Debian starts mosquitto as a service on install; the tests start their own brokers on free ports.
python3 -m pip install -q --upgrade pip >/dev/null 2>&1 || true
python3 -m pip install -q -e '.[test]'
# The display's MQTT client comes from the npm registry at build time, never committed.
if [ -f controller/web/package.json ]; then
  (cd controller/web && npm install --no-audit --no-fund --silent)
fi
# MicroPython (WebAssembly port) runs the reference firmware's protocol code in the tests.
if [ -f firmware_bridge/firmware/mpy_host/package.json ]; then
  (cd firmware_bridge/firmware/mpy_host && npm install --no-audit --no-fund --silent)
fi
