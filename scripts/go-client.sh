#!/usr/bin/env bash
# The Go client (go/, its own module) with Go's module and build caches outside the work tree, in
# $DISPATCH_KUBEFLOW_CACHE/go-client/{mod,build} (default ~/.cache/dispatch-kubeflow; CI caches
# that folder), so a cold machine downloads go.temporal.io/sdk and its dependencies, and compiles
# them, once. The machine's go builds it; modules come from the Go module proxy (GOPROXY).
#
#   scripts/go-client.sh check       download the modules (with progress when cold), go vet with and
#                                    without the integration tag, go test (the unit tests, with
#                                    testdata/go-encodings.json's freshness check)
#   scripts/go-client.sh go <args>   go <args> in go/ with those caches (the Go integration tests,
#                                    test/integration/go-client/, run through this)
#   scripts/go-client.sh go-in <dir> <args>
#                                    go <args> in <dir> with those caches: another copy of the
#                                    module, such as the previous release's go/ tree that
#                                    test/integration/go-client/ runs against today's worker
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${DISPATCH_KUBEFLOW_CACHE:-$HOME/.cache/dispatch-kubeflow}/go-client
export GOMODCACHE="$cache/mod" GOCACHE="$cache/build"
# Writable module files, so that the cache folder can be deleted (or restored by CI) like any other.
export GOFLAGS="-modcacherw $(go env GOFLAGS)"
if [ "${1:-}" = go-in ]; then
  cd "${2:?usage: scripts/go-client.sh go-in <dir> <args>}"
  shift 2
  exec go "$@"
fi
cd "$here/../go"
# shellcheck source=scripts/with-progress.sh
. "$here/with-progress.sh"

case "${1:-}" in
  go)
    shift
    exec go "$@"
    ;;
  check)
    # Offline, the download succeeds only when every module is in the cache already.
    if ! GOPROXY=off go mod download >/dev/null 2>&1; then
      echo "downloading the Go client's modules (go.temporal.io/sdk and its dependencies; once, into $GOMODCACHE) …" >&2
      start=$SECONDS
      with_progress "downloading the Go client's modules" go mod download
      echo "downloaded in $((SECONDS - start))s" >&2
    fi
    start=$SECONDS
    # A cold build cache compiles the SDK first (a minute or more on two cores).
    with_progress "compiling and vetting the Go client" go vet ./...
    go vet -tags integration ./...
    go test -count=1 ./...
    echo "go vet, go test: $((SECONDS - start))s" >&2
    ;;
  *)
    echo "usage: scripts/go-client.sh check | go <args> | go-in <dir> <args>" >&2
    exit 2
    ;;
esac
