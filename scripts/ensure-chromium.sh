#!/usr/bin/env bash
# The console's browser tests drive the system's Chromium (Debian's chromium package) with
# playwright-core: installed with apt when missing (as root, or with sudo), as infra.sh installs
# RabbitMQ and PostgreSQL. CHROMIUM_PATH names another Chromium; then nothing is installed.
set -euo pipefail

say() { echo "chromium: $*"; }
die() {
  echo "chromium: error: $*" >&2
  exit 1
}

if [ -n "${CHROMIUM_PATH:-}" ]; then
  [ -x "$CHROMIUM_PATH" ] || die "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable"
  exit 0
fi
if command -v chromium >/dev/null || command -v chromium-browser >/dev/null; then exit 0; fi

if [ "$(id -u)" = 0 ]; then
  AS_ROOT=()
elif command -v sudo >/dev/null; then
  AS_ROOT=(sudo -n)
else
  die "Debian's chromium package is needed for the console's browser tests: install it (apt-get install chromium) or set CHROMIUM_PATH"
fi
command -v apt-get >/dev/null || die "no apt-get: install Chromium yourself and set CHROMIUM_PATH"
say "installing Debian's chromium package"
"${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null
"${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium </dev/null ||
  die "apt-get could not install chromium"
command -v chromium >/dev/null || die "chromium is still missing after apt-get"
