#!/usr/bin/env bash
# npm start: install, build, bring up local infrastructure, run every service.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
npx tsc -b
bash scripts/infra.sh up
exec node scripts/start.js
