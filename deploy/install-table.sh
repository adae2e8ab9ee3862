#!/usr/bin/env bash
# Turns a Raspberry Pi 5 (Raspberry Pi OS bookworm) or any Debian 12 machine into the table:
#   - the code in /opt/smart-table/app, its virtual environment in /opt/smart-table/venv,
#     `smart-table` linked into /usr/local/bin;
#   - Mosquitto as a service with deploy/mosquitto/mosquitto.conf and the ACL rendered for table.id, a password
#     file holding the controller's and the table screen's logins;
#   - the controller as the systemd service smart-table.service, user `smart-table` (groups dialout, video),
#     its config /etc/smart-table/table.toml, the game database under /var/lib/smart-table;
#   - the udev rule naming the tower /dev/battle-tower;
#   - a kiosk Chromium (in the `cage` compositor on tty1) showing the table view at boot;
#   - log rotation (a journald size limit; Mosquitto's log file is rotated by Debian's package).
# Re-running it upgrades in place: the code and units are replaced, the games (/var/lib/smart-table),
# the config and every credential (the password file, the controller's and the screen's passwords) stay.
#
# Usage: sudo bash deploy/install-table.sh [--root DIR] [--dry-run] [--no-kiosk]
#   --root DIR   render every file under DIR instead of / and change nothing on this machine: the commands
#                that would change it (apt-get, useradd, pip, systemctl, udevadm) are printed, not run.
#                CI uses it to check the units and the Mosquitto config.
#   --dry-run    the same into a new temporary folder (printed at the end).
#   --no-kiosk   no screen attached: skip Chromium, cage and the kiosk service.
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
ROOT=""
KIOSK=1
while [ $# -gt 0 ]; do
  case "$1" in
    --root) [ $# -ge 2 ] || { echo "install-table: --root needs a folder" >&2; exit 2; }; ROOT="$2"; shift 2 ;;
    --root=*) ROOT="${1#--root=}"; shift ;;
    --dry-run) ROOT="$(mktemp -d /tmp/smart-table-root.XXXXXX)"; shift ;;
    --no-kiosk) KIOSK=0; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-table: unknown option $1 (use --root DIR, --dry-run, --no-kiosk)" >&2; exit 2 ;;
  esac
done
say() { echo "install-table: $*"; }
die() { echo "install-table: $*" >&2; exit 1; }
if [ -n "$ROOT" ]; then
  mkdir -p "$ROOT"
  ROOT="$(cd "$ROOT" && pwd)"
  [ "$ROOT" != "/" ] || die "--root / is the machine itself: run without --root instead."
  run() { echo "would run: $*"; }
else
  # The appliance is services: without systemd running (a container, a chroot) say so before changing anything.
  [ -d /run/systemd/system ] || die "systemd is not running on this machine (a container or chroot?): the table's \
services cannot be installed here; use --root DIR to render the files instead."
  if [ "$(id -u)" != "0" ]; then
    command -v sudo >/dev/null 2>&1 || die "run this as root (sudo is not installed)."
    exec sudo bash "$0" "$@"
  fi
  run() { "$@"; }
fi
PY="${SMART_TABLE_PYTHON:-python3}"
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
  || die "$PY is missing or older than 3.11 (Debian 12 / Raspberry Pi OS bookworm have 3.11)."

APP=/opt/smart-table/app
VENV=/opt/smart-table/venv
ETC=/etc/smart-table
DATA=/var/lib/smart-table
MOSQ=/etc/mosquitto/smart-table
USER_NAME=smart-table
KIOSK_USER=smart-table-kiosk
r() { echo "$ROOT$1"; }  # a path of the target system, under --root when given
[ "$SRC" != "$(r $APP)" ] || die "run it from a checkout (git clone ...), not from $APP, which it replaces."

# -- system packages ----------------------------------------------------------------------------------------
pkgs=(mosquitto mosquitto-clients python3-venv nodejs npm)
[ "$KIOSK" = 1 ] && pkgs+=(chromium cage)
missing=()
for p in "${pkgs[@]}"; do
  # npm ships inside NodeSource's nodejs package: a working npm is enough.
  if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  run apt-get update -qq
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

# -- users ----------------------------------------------------------------------------------------------------
if [ -z "$ROOT" ]; then
  id "$USER_NAME" >/dev/null 2>&1 || useradd --system --home-dir "$DATA" --shell /usr/sbin/nologin "$USER_NAME"
  usermod -a -G dialout,video "$USER_NAME"
  if [ "$KIOSK" = 1 ]; then
    id "$KIOSK_USER" >/dev/null 2>&1 || useradd --system --create-home --home-dir /var/lib/$KIOSK_USER \
      --shell /usr/sbin/nologin "$KIOSK_USER"
    for g in video render input; do getent group "$g" >/dev/null && usermod -a -G "$g" "$KIOSK_USER"; done
  fi
else
  run useradd --system --home-dir "$DATA" --shell /usr/sbin/nologin "$USER_NAME"
  run usermod -a -G dialout,video "$USER_NAME"
fi
owner() { [ -z "$ROOT" ] && chown "$@" || true; }  # ownership only on the real system

# -- the code and its virtual environment -----------------------------------------------------------------
# pip installs the versions the suite passed with (deploy/constraints.txt, `-c`), not the newest of each.
# Tracked files only (no .venv, node_modules, caches); an upgrade removes what the new version dropped.
mkdir -p "$(r $APP)"
if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files="$(cd "$SRC" && git ls-files --cached --others --exclude-standard)"
else
  files="$(cd "$SRC" && find . -type f ! -path '*/node_modules/*' ! -path './.venv/*' ! -path '*/__pycache__/*' \
           ! -path './.git/*' | sed 's#^\./##')"
fi
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
(cd "$SRC" && echo "$files" | while IFS= read -r f; do [ -f "$f" ] && printf '%s\0' "$f"; done \
  | xargs -0 cp --parents -t "$stage")
# Replace the code but keep the installed npm modules (npm install below only updates them).
for d in controller/web firmware_bridge/firmware/mpy_host; do
  if [ -d "$(r $APP)/$d/node_modules" ]; then mkdir -p "$stage/$d" && mv "$(r $APP)/$d/node_modules" "$stage/$d/"; fi
done
rm -rf "$(r $APP)" && mv "$stage" "$(r $APP)" && trap - EXIT
chmod 755 "$(r $APP)"
say "code: $(r $APP) ($(echo "$files" | wc -l) files from $SRC)"
if [ -z "$ROOT" ]; then
  [ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  out="$("$VENV/bin/python" -m pip install -q -c "$APP/deploy/constraints.txt" -e "$APP" 2>&1)" \
    || { echo "$out" >&2; die "pip failed (above)."; }
  (cd "$APP/controller/web" && npm install --omit=dev --no-audit --no-fund --silent)
  ln -sfn "$VENV/bin/smart-table" /usr/local/bin/smart-table
else
  run "$PY" -m venv "$VENV"
  run "$VENV/bin/python" -m pip install -c "$APP/deploy/constraints.txt" -e "$APP"
  run npm install --omit=dev --prefix "$APP/controller/web"
  mkdir -p "$(r /usr/local/bin)" && ln -sfn "$VENV/bin/smart-table" "$(r /usr/local/bin/smart-table)"
fi

# -- credentials and the config ------------------------------------------------------------------------------
mkdir -p "$(r $ETC)" "$(r $DATA)" "$(r $MOSQ)"
owner "root:$USER_NAME" "$(r $ETC)" && chmod 750 "$(r $ETC)"
owner "$USER_NAME:$USER_NAME" "$(r $DATA)" && chmod 750 "$(r $DATA)"
# The password file is Mosquitto's: new files in its folder get the mosquitto group (setgid), so a
# tablet added later with `smart-table tablets add` stays readable by the broker.
owner "root:mosquitto" "$(r $MOSQ)" && chmod 2750 "$(r $MOSQ)"
# Keeps the passwords already in the config / kiosk.env when they still match the password file;
# otherwise makes new ones. Writes the config from the example on the first run only.
"$PY" - "$SRC" "$(r $ETC)/table.toml" "$(r $MOSQ)/passwd" "$(r $ETC)/kiosk.env" "$KIOSK" "$MOSQ/passwd" \
  "$(r $MOSQ)/acl" <<'PYEOF'
import os, re, secrets, sys, tomllib
from pathlib import Path
src, conf, passwd, kiosk_env = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
kiosk, passwd_on_target, acl = sys.argv[5] == "1", sys.argv[6], Path(sys.argv[7])
sys.path.insert(0, str(src))
from controller.broker import render_acl  # stdlib only
from controller.credentials import check_password, join_link, login, read_passwd, set_user  # stdlib only

def set_key(text: str, section: str, key: str, value: str) -> str:
    """Replace `key = ...` (commented or not) inside [section] with `key = value`."""
    head = re.search(rf"^\[{re.escape(section)}\]\s*$", text, re.M)
    end = re.search(r"^\[", text[head.end():], re.M)
    body_end = head.end() + end.start() if end else len(text)
    body = text[head.end():body_end]
    new, n = re.subn(rf"^#? ?{re.escape(key)} = .*$", f"{key} = {value}", body, count=1, flags=re.M)
    assert n == 1, f"{section}.{key} not in the example config"
    return text[:head.end()] + new + text[body_end:]

first = not conf.exists()
text = conf.read_text() if not first else (src / "deploy" / "smart-table.example.toml").read_text()
values = tomllib.loads(text)
# Every login names its table (`table-1/controller`) and the ACL names the table in every line.
tid = values.get("table", {}).get("id", "table-1")
ctl, disp = login(tid, "controller"), login(tid, "display")
acl.write_text(render_acl([tid]))
os.chmod(acl, 0o640)
users = read_passwd(passwd)
pw = values.get("mqtt", {}).get("password", "")
if pw and ctl not in users and any(u.endswith("/controller") and check_password(pw, h) for u, h in users.items()):
    set_user(passwd, ctl, pw)  # the table was renamed: its controller keeps its password under the new name
    print(f"install-table: the controller's login is now {ctl} (table.id changed)")
    users = read_passwd(passwd)
if not (pw and ctl in users and check_password(pw, users[ctl])):
    pw = secrets.token_urlsafe(18)
    set_user(passwd, ctl, pw)
    print(f"install-table: new MQTT password for the controller (in {conf} and {passwd})")
    text = set_key(text, "mqtt", "password", f'"{pw}"')
if first:
    for section, key, value in (("mqtt", "embedded", "false"), ("mqtt", "password_file", f'"{passwd_on_target}"'),
                                ("table", "database", '"/var/lib/smart-table/smart-table.db"'),
                                ("table", "observed_chance", "true"), ("display", "host", '"0.0.0.0"')):
        text = set_key(text, section, key, value)
    text = "# Written by deploy/install-table.sh from deploy/smart-table.example.toml; re-running it keeps this file.\n" + text
if first or text != conf.read_text():
    tmp = conf.with_name(conf.name + ".tmp")
    tmp.write_text(text)
    os.chmod(tmp, 0o640)
    os.replace(tmp, conf)
    print(f"install-table: {'wrote' if first else 'updated'} {conf}")
if kiosk:
    values = tomllib.loads(text)
    env = dict(line.split("=", 1) for line in kiosk_env.read_text().splitlines() if "=" in line) if kiosk_env.exists() else {}
    dpw = env.get("SMART_TABLE_DISPLAY_PASSWORD", "")
    users = read_passwd(passwd)
    if dpw and disp not in users and any(u.endswith("/display") and check_password(dpw, h) for u, h in users.items()):
        set_user(passwd, disp, dpw)  # the table was renamed: the screen keeps its password
        users = read_passwd(passwd)
    if not (dpw and disp in users and check_password(dpw, users[disp])):
        dpw = secrets.token_urlsafe(18)
        set_user(passwd, disp, dpw)
        print(f"install-table: new MQTT password for the table screen (user {disp}, in {kiosk_env})")
    d, m, t = values.get("display", {}), values.get("mqtt", {}), values.get("table", {})
    port, ws = d.get("port", 8080), m.get("ws_port", 9001)
    url = join_link("127.0.0.1", port, ws, t.get("id", "table-1"), None, disp, dpw)
    kiosk_env.write_text(f"SMART_TABLE_DISPLAY_PASSWORD={dpw}\nSMART_TABLE_DISPLAY_PORT={port}\n"
                         f"SMART_TABLE_KIOSK_URL={url}\n")
    os.chmod(kiosk_env, 0o640)
os.chmod(passwd, 0o640)
PYEOF
owner "root:$USER_NAME" "$(r $ETC)/table.toml"
owner "root:mosquitto" "$(r $MOSQ)/passwd"
[ "$KIOSK" = 1 ] && owner "root:$KIOSK_USER" "$(r $ETC)/kiosk.env"

# -- Mosquitto -----------------------------------------------------------------------------------------------------
mkdir -p "$(r /etc/mosquitto/conf.d)"
install -m 0644 "$SRC/deploy/mosquitto/mosquitto.conf" "$(r /etc/mosquitto/conf.d/smart-table.conf)"
# The ACL was rendered above for this table's id (controller.broker.render_acl; deploy/mosquitto/acl is table-1's).
owner "root:mosquitto" "$(r $MOSQ)/acl"
if [ -n "$ROOT" ]; then
  # Under --root the config must name the rendered files, so it can be started as it is for a check.
  sed -i "s#$MOSQ/#$(r $MOSQ)/#g" "$(r /etc/mosquitto/conf.d/smart-table.conf)"
fi

# -- systemd units, udev, log rotation ------------------------------------------------------------------------
mkdir -p "$(r /etc/systemd/system)" "$(r /etc/udev/rules.d)" "$(r /etc/systemd/journald.conf.d)"
install -m 0644 "$SRC/deploy/systemd/smart-table.service" "$(r /etc/systemd/system/smart-table.service)"
install -m 0644 "$SRC/deploy/udev/99-smart-table.rules" "$(r /etc/udev/rules.d/99-smart-table.rules)"
install -m 0644 "$SRC/deploy/systemd/journald-smart-table.conf" "$(r /etc/systemd/journald.conf.d/smart-table.conf)"
units=(mosquitto.service smart-table.service)
if [ "$KIOSK" = 1 ]; then
  install -m 0644 "$SRC/deploy/systemd/smart-table-kiosk.service" "$(r /etc/systemd/system/smart-table-kiosk.service)"
  units+=(smart-table-kiosk.service)
else
  rm -f "$(r /etc/systemd/system/smart-table-kiosk.service)"
fi
run udevadm control --reload
run udevadm trigger --subsystem-match=tty
run systemctl daemon-reload
run systemctl restart systemd-journald
run systemctl enable mosquitto.service smart-table.service
[ "$KIOSK" = 1 ] && run systemctl enable smart-table-kiosk.service
# Restart (not start): an upgrade must run the new code and the broker re-read its config.
run systemctl restart mosquitto.service smart-table.service
[ "$KIOSK" = 1 ] && run systemctl restart smart-table-kiosk.service
if [ -n "$ROOT" ]; then
  say "rendered into $ROOT; nothing on this machine was changed"
else
  say "done; check it with: sudo -u $USER_NAME smart-table doctor --config $ETC/table.toml"
  say "join a tablet:       sudo smart-table tablets add red --config $ETC/table.toml --host $(hostname).local"
fi
