#!/usr/bin/env bash
# Installs npm dependencies when they are missing or older than the lockfile.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "deps: installing npm dependencies"
  npm ci --no-fund --no-audit
fi
