#!/usr/bin/env bash
# npm start: install, build, bring up local infrastructure, run every service.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/use-node.sh
bash scripts/ensure-deps.sh
npx tsc -b
npm run build -w @switchboard/console # the web console the gateway serves at /console/
bash scripts/infra.sh up
# What infra.sh started, unless the caller named servers of their own.
export MONGODB_URL="${MONGODB_URL:-mongodb://127.0.0.1:${DOCDB_PORT:-27017}}"
export AMQP_URL="${AMQP_URL:-amqp://127.0.0.1:${AMQP_PORT:-5672}}"
exec node scripts/start.js
