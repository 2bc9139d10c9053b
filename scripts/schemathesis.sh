#!/usr/bin/env bash
# Installs Schemathesis (the API fuzzer the tests run over our OpenAPI document) from PyPI into
# .data/venv-schemathesis, once; prints the path of its `schemathesis` binary. Never prompts.
set -euo pipefail
cd "$(dirname "$0")/.."

# One version for every run, so a newer release's checks never change what `npm test` means.
VERSION=${SCHEMATHESIS_VERSION:-4.32.5}
VENV=.data/venv-schemathesis
BIN="$VENV/bin/schemathesis"

say() { echo "schemathesis: $*" >&2; }
die() {
  say "$*"
  exit 1
}

if [ -x "$BIN" ] && [ "$(cat "$VENV/.version" 2>/dev/null)" = "$VERSION" ]; then
  echo "$PWD/$BIN"
  exit 0
fi

command -v python3 >/dev/null || die "python3 is needed (Debian: apt-get install python3-venv)"

# Debian splits venv's pip bootstrap into python3-venv; install it as infra.sh installs RabbitMQ.
if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    AS_ROOT=()
  elif command -v sudo >/dev/null; then
    AS_ROOT=(sudo -n)
  else
    die "python3 lacks venv/ensurepip and sudo is not installed: apt-get install python3-venv"
  fi
  say "installing Debian's python3-venv package"
  "${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null
  "${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv </dev/null ||
    die "apt-get could not install python3-venv"
fi

# A lock, so two test files starting at once do not build the same directory together.
mkdir -p .data
exec 9>.data/venv-schemathesis.lock
flock -w 600 9 || die "another install holds .data/venv-schemathesis.lock"
if [ -x "$BIN" ] && [ "$(cat "$VENV/.version" 2>/dev/null)" = "$VERSION" ]; then
  echo "$PWD/$BIN"
  exit 0
fi

say "installing schemathesis $VERSION into $VENV"
rm -rf "$VENV"
python3 -m venv "$VENV" </dev/null >&2
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
  "schemathesis==$VERSION" </dev/null >&2 || die "pip could not install schemathesis $VERSION"
echo "$VERSION" >"$VENV/.version"
echo "$PWD/$BIN"
