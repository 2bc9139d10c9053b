#!/usr/bin/env bash
# Installs npm dependencies when they are missing or older than the lockfile.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/use-node.sh # start.sh and test.sh have chosen it already: silent then
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "deps: installing npm dependencies"
  # `npm install`, not `npm ci`: with this machine's npm settings (omit-lockfile-registry-resolved)
  # the lockfile leaves out other platforms' optional packages, and `npm ci` refuses it as out of sync.
  npm install --no-fund --no-audit
fi
