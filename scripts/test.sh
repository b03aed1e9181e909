#!/usr/bin/env bash
# The README's test command (`npm test`): static checks, the Go client's vet and unit tests, then
# every test of the unit, integration and multikueue projects against the real servers, which are built first
# if not cached (the integration project runs the Go client's integration tests too); then, on a
# whole run (no arguments), the short chaos schedules (one cluster, MultiKueue) and the quick API server outage and Temporal
# restart tests (docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."

# The tests run on the Node the image runs (.node-version; a supported LTS), whatever Node ran
# `npm ci` (.ci/run's is the machine's): scripts/ensure-node.sh fetches it once into the cache, and
# it goes first on PATH, so npx, vitest's workers and every node the tests spawn are that one. The
# native modules installed are N-API (@temporalio/core-bridge among them): one build serves both.
PATH="$(bash scripts/ensure-node.sh):$PATH"
export PATH
echo "== Node $(node --version) ($(command -v node))"

echo "== typecheck and lint"
npx tsc -p tsconfig.json --noEmit
npx eslint .
bash scripts/test-artefact.sh # dist/, the workflow bundles and a production install (docs/testing.md)

echo "== the Go client (go/): go vet and go test, its modules downloaded and compiled once, then cached"
# Its module and build caches are outside the work tree (scripts/go-client.sh), warm for the Go
# integration tests below. go/testdata/contract.json's freshness is a unit test of the tests step.
bash scripts/go-client.sh check

echo "== servers (built once from the Go module proxy, then cached)"
bash scripts/build-servers.sh
bash scripts/ensure-chromium.sh # the Temporal UI test drives Debian's chromium
bash scripts/ensure-postgres.sh # the PostgreSQL smoke suite (test/integration/postgres) runs Debian's PostgreSQL

echo "== tests"
npx vitest run --coverage "$@"

# Arguments select tests of the projects above (unit, integration, multikueue); only a whole run
# goes on to the faults.
if [ "$#" -eq 0 ]; then
  echo "== faults: the short chaos schedules (one cluster, then MultiKueue; fixed seeds), then the quick outage and restart tests"
  npm run test:chaos -- --seed 20261201 --jobs 24 --concurrency 6 --fault-gap 4
  # The same on MultiKueue: a manager and a worker cluster, faults on both (about 3.5 minutes).
  npm run test:chaos -- --seed 20261201 --jobs 12 --concurrency 4 --fault-gap 4 --multikueue
  # Selected by name: a rename would otherwise leave fewer tests (or none) running, and still pass.
  # Six steps with a 5 s API server outage, three Temporal restart points.
  report="$(mktemp -t dk-faults-XXXXXX.json)"
  trap 'rm -f "$report"' EXIT
  DISPATCH_KUBEFLOW_RELIABILITY=1 npx vitest run --project reliability \
    test/reliability/apiserver-outage.test.ts test/reliability/temporal-restart.test.ts \
    -t "outage 5 s|Temporal restart mid-Start" \
    --reporter=default --reporter=json --outputFile.json="$report"
  npx tsx scripts/expect-passed.ts "$report" "outage 5 s=6" "Temporal restart mid-Start=3"
fi
