#!/usr/bin/env bash
# The README's test command (`npm test`): static checks, then every test of the unit and
# integration projects against the real servers, which are built first if not cached.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== typecheck and lint"
npx tsc -p tsconfig.json --noEmit
npx eslint .
bash scripts/test-artefact.sh # dist/, the workflow bundles and a production install (docs/testing.md)

echo "== servers (built once from the Go module proxy, then cached)"
bash scripts/build-servers.sh
bash scripts/ensure-chromium.sh # the Temporal UI test drives Debian's chromium

echo "== tests"
npx vitest run --coverage "$@"
