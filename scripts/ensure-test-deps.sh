#!/usr/bin/env bash
# System packages the tests need, from Debian, installed when missing:
#  - chromium: browser tests drive it with playwright-core (no browser download is possible here);
#  - postgresql: the Postgres tests start a throwaway server from its binaries;
#  - poppler-utils: pdftotext reads the exported PDFs back as an independent reader would;
#  - nginx-light: the relay and gateway-scale benchmarks (their smoke runs too) hold the gateway to nginx.
# PARLEY_CHROMIUM may point at another Chromium binary.
set -euo pipefail
chromium_bin="${PARLEY_CHROMIUM:-/usr/bin/chromium}"
missing=()
[ -x "$chromium_bin" ] || missing+=(chromium)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
command -v pdftotext >/dev/null || missing+=(poppler-utils)
[ -x /usr/sbin/nginx ] || missing+=(nginx-light)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing Debian packages for the tests: ${missing[*]}" >&2
if [ "$(id -u)" = "0" ]; then sudo_cmd=""; elif command -v sudo >/dev/null; then sudo_cmd="sudo"; else
  echo "Cannot install ${missing[*]} without root: install them with apt-get, or set PARLEY_CHROMIUM." >&2; exit 1
fi
$sudo_cmd apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
[ -x "$chromium_bin" ] || { echo "chromium install did not produce $chromium_bin" >&2; exit 1; }
