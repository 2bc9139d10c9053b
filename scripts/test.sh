#!/usr/bin/env bash
# npm test: lint, type check, then unit, component and end-to-end tests against real infrastructure.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/use-node.sh
bash scripts/ensure-deps.sh
bash scripts/infra.sh up
bash scripts/ensure-chromium.sh
# What infra.sh started, unless the caller named servers of their own.
export MONGODB_URL="${MONGODB_URL:-mongodb://127.0.0.1:${DOCDB_PORT:-27017}}"
export AMQP_URL="${AMQP_URL:-amqp://127.0.0.1:${AMQP_PORT:-5672}}"
echo "test: lint"
npx eslint .
npx prettier --check . >/dev/null || { npx prettier --check .; exit 1; }
echo "test: type check and build"
npx tsc -b
npx tsc -p tsconfig.test.json
# The console's bundle, which the gateway serves and the browser tests open.
npm run build -w @switchboard/console
echo "test: jest"
npx jest --ci "$@"
