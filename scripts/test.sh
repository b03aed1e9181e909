#!/usr/bin/env bash
# The README's test command (`npm test`): static checks, then every test of the unit and
# integration projects against the real servers, which are built first if not cached.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== typecheck and lint"
npx tsc -p tsconfig.json --noEmit
npx eslint .

echo "== servers (built once from the Go module proxy, then cached)"
bash scripts/build-servers.sh

echo "== tests"
npx vitest run --coverage "$@"
