#!/usr/bin/env bash
# npm test: lint, type check, then unit, component and end-to-end tests against real infrastructure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/infra.sh up
echo "test: lint"
npx eslint .
npx prettier --check . >/dev/null || { npx prettier --check .; exit 1; }
echo "test: type check and build"
npx tsc -b
npx tsc -p tsconfig.test.json
echo "test: jest"
npx jest --ci "$@"
