#!/bin/sh
# Prepares a running Temporal server for dispatch-kubeflow: the namespace the worker polls and the
# search attributes every Start sets (src/model/constants.ts, SearchAttributes), each a Keyword.
# SQL visibility (PostgreSQL) allows 10 Keyword attributes per namespace; these are 4. Run by
# docker-compose.yml's temporal-setup (in temporalio/admin-tools) and by the PostgreSQL smoke suite
# and `npm run dev:up -- --temporal postgres` (dev/harness/postgres.ts). Safe to run again: it
# fails only if an attribute exists with another type, or the server never answers.
#
#   TEMPORAL_ADDRESS (read by the CLI), TEMPORAL_NAMESPACE (default), TEMPORAL_CLI (temporal)
set -eu

ns=${TEMPORAL_NAMESPACE:-default}
cli() { "${TEMPORAL_CLI:-temporal}" "$@"; }
retry() { # a freshly started server refuses for a while: every 2 s, for 2 minutes at most
  n=0
  until "$@"; do
    n=$((n + 1))
    if [ "$n" -ge 60 ]; then echo "gave up: $*" >&2; return 1; fi
    sleep 2
  done
}

namespace() { cli operator namespace describe -n "$ns" >/dev/null 2>&1 || cli operator namespace create -n "$ns" --retention 72h; }

retry cli operator cluster health
retry namespace
# One attribute a call: given several --name flags and one --type, CLI 1.5.1 registers only the first.
for name in DispatchJobId DispatchTrainJob DispatchStep DispatchPhase; do
  retry cli operator search-attribute create --namespace "$ns" --name "$name" --type Keyword
done
attributes=$(cli operator search-attribute list --namespace "$ns" --output json)
for name in DispatchJobId DispatchTrainJob DispatchStep DispatchPhase; do
  echo "$attributes" | grep -q "\"$name\": *\"INDEXED_VALUE_TYPE_KEYWORD\"" ||
    { echo "search attribute $name is not a Keyword in namespace $ns" >&2; exit 1; }
done
echo "namespace $ns ready: DispatchJobId, DispatchTrainJob, DispatchStep, DispatchPhase (Keyword)"
