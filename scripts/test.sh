#!/usr/bin/env bash
# npm test: lint, type check, then unit, component and end-to-end tests against real infrastructure:
# the local one (scripts/infra.sh, or MONGODB_URL and AMQP_URL), or with TEST_INFRA=testcontainers
# and a Docker engine, containers of the run's own (scripts/test-infrastructure.js).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/use-node.sh
bash scripts/ensure-deps.sh
bash scripts/ensure-chromium.sh
echo "test: lint"
npx eslint .
npx prettier --check . >/dev/null || { npx prettier --check .; exit 1; }
echo "test: type check and build"
npx tsc -b
npx tsc -p tsconfig.test.json
# The console's bundle, which the gateway serves and the browser tests open.
npm run build -w @switchboard/console
echo "test: jest"
node scripts/test-infrastructure.js npx jest --ci "$@"
