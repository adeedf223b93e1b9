#!/usr/bin/env bash
# Browser tests drive Debian's Chromium (playwright-core cannot download a browser here).
# Installs it when missing; PARLEY_CHROMIUM may point at another Chromium binary.
set -euo pipefail
bin="${PARLEY_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$bin" ]; then exit 0; fi
echo "Chromium not found at $bin: installing Debian's chromium package..." >&2
if [ "$(id -u)" = "0" ]; then sudo_cmd=""; elif command -v sudo >/dev/null; then sudo_cmd="sudo"; else
  echo "Cannot install chromium without root. Install it (apt-get install chromium) or set PARLEY_CHROMIUM." >&2; exit 1
fi
$sudo_cmd apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >/dev/null
[ -x "$bin" ] || { echo "chromium install did not produce $bin" >&2; exit 1; }
