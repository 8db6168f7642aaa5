#!/usr/bin/env bash
# Screenshots an HTML report with headless Chromium: scripts/screenshot_report.sh REPORT.html OUT.png [WIDTHxHEIGHT]
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 REPORT.html OUT.png [WIDTHxHEIGHT (default 1280x2400)]" >&2
  exit 2
fi
report=$(realpath "$1")
out=$(realpath -m "$2")
size=${3:-1280x2400}
[[ -f "$report" ]] || { echo "$0: no such file: $1" >&2; exit 2; }

chromium=/usr/bin/chromium
if [[ ! -x "$chromium" ]]; then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo=sudo
  $sudo apt-get install -y chromium >&2 || { $sudo apt-get update >&2 && $sudo apt-get install -y chromium >&2; }
fi

# --disable-dev-shm-usage: containers often have a small /dev/shm, where Chromium would crash.
args=(--headless --disable-gpu --disable-dev-shm-usage --hide-scrollbars --screenshot="$out" --window-size="${size/x/,}")
[[ $(id -u) -ne 0 ]] || args+=(--no-sandbox)  # Chromium refuses to run as root with its sandbox
# Its own profile so a running browser or a previous crash cannot interfere; removed afterwards.
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# Filtered stderr: headless noise (no D-Bus in containers) and a warning of Debian's launcher script
# (/etc/chromium.d/dev-shm compares findmnt output that can hold several numbers).
"$chromium" "${args[@]}" --user-data-dir="$profile" "file://$report" \
  2> >(grep -v -e 'dbus' -e 'Fontconfig' -e 'unexpected operator' >&2 || true)
[[ -s "$out" ]] || { echo "$0: chromium wrote no screenshot" >&2; exit 1; }
echo "$out"
