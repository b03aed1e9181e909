#!/usr/bin/env bash
# Builds the real servers the tests and the embedded default run on, from the Go module proxy,
# each from its own small consumer module under scripts/servers/<tool>/ (pinned in its go.mod).
# Binaries are cached outside the work tree, keyed by tool, version and a hash of the module,
# so a cold build (tens of minutes on 2 cores) happens once per version.
#
#   scripts/build-servers.sh            build what is missing, print "<tool>=<path>" lines
#   scripts/build-servers.sh --print    only print the paths (exit 1 if any is missing)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache_root=${DISPATCH_KUBEFLOW_CACHE:-$HOME/.cache/dispatch-kubeflow}
print_only=false
[ "${1:-}" = "--print" ] && print_only=true

# Kubernetes binaries report a real version (Kueue refuses an API server whose version it cannot
# parse, and "v0.0.0-master" is what an unstamped build reports).
k8s_version=v1.35.4
k8s_ldflags="-X k8s.io/component-base/version.gitVersion=$k8s_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=35 -X k8s.io/component-base/version.gitTreeState=clean"

# Helm reports its release (`helm version`, .Capabilities.HelmVersion) only when stamped, as its Makefile does.
helm_version=$(awk '$1=="helm.sh/helm/v4" {print $2; exit}' "$here/servers/helm/go.mod")
helm_ldflags="-X helm.sh/helm/v4/internal/version.version=$helm_version -X helm.sh/helm/v4/internal/version.gitTreeState=clean"

# tool | binary | package built | module that pins the version | extra -ldflags
tools=(
  "etcd|etcd|go.etcd.io/etcd/server/v3|go.etcd.io/etcd/server/v3|"
  "temporal|temporal|github.com/temporalio/cli/cmd/temporal|github.com/temporalio/cli|"
  "kube-apiserver|kube-apiserver|k8s.io/kubernetes/cmd/kube-apiserver|k8s.io/kubernetes|$k8s_ldflags"
  "kube-controller-manager|kube-controller-manager|k8s.io/kubernetes/cmd/kube-controller-manager|k8s.io/kubernetes|$k8s_ldflags"
  "kube-scheduler|kube-scheduler|k8s.io/kubernetes/cmd/kube-scheduler|k8s.io/kubernetes|$k8s_ldflags"
  "kwok|kwok|sigs.k8s.io/kwok/cmd/kwok|sigs.k8s.io/kwok|"
  "jobset|jobset-manager|sigs.k8s.io/jobset|sigs.k8s.io/jobset|"
  "trainer|trainer-controller-manager|github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager|github.com/kubeflow/trainer/v2|"
  "kueue|kueue|sigs.k8s.io/kueue/cmd/kueue|sigs.k8s.io/kueue|"
  "helm|helm|helm.sh/helm/v4/cmd/helm|helm.sh/helm/v4|$helm_ldflags"
  "promtool|promtool|github.com/prometheus/prometheus/cmd/promtool|github.com/prometheus/prometheus|"
)

module_version() { # the pinned version of a module in a consumer module's go.mod
  local dir=$1 mod=$2
  awk -v m="$mod" '$1==m {print $2; exit} $1=="require" && $2==m {print $3; exit}' "$dir/go.mod"
}

binary_dir() { # cache folder for one tool: <tool>-<version>-<hash of go.mod, go.sum and ldflags>
  local tool=$1 dir=$2 mod=$3 ldflags=$4 version hash
  version=$(module_version "$dir" "$mod")
  hash=$({ cat "$dir/go.mod" "$dir/go.sum"; [ -z "$ldflags" ] || echo "$ldflags"; } | sha256sum | cut -c1-10)
  echo "$cache_root/$tool-$version-$hash"
}

# shellcheck source=scripts/with-progress.sh
. "$here/with-progress.sh"

missing=0
for entry in "${tools[@]}"; do
  IFS='|' read -r tool binary pkg mod ldflags <<<"$entry"
  dir="$here/servers/$tool"
  out=$(binary_dir "$tool" "$dir" "$mod" "$ldflags")
  if [ -x "$out/$binary" ]; then
    echo "$tool=$out/$binary"
    continue
  fi
  if $print_only; then missing=1; continue; fi
  version=$(module_version "$dir" "$mod")
  echo "building $tool $version from the Go module proxy (once; cached in $out) …" >&2
  start=$SECONDS
  mkdir -p "$out.tmp"
  # -trimpath and no VCS stamping keep the build independent of where the repo is checked out.
  with_progress "building $tool $version" \
    env -C "$dir" CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "$out.tmp/$binary" "$pkg"
  rm -rf "$out" && mv "$out.tmp" "$out"
  echo "built $tool $version in $((SECONDS - start))s" >&2
  echo "$tool=$out/$binary"
done

# The Temporal server and its SQL schema tool, for Temporal on PostgreSQL (dev/harness/postgres.ts,
# docker-compose.yml, docs/deploy.md), built from one consumer module at the server version the CLI
# above pins: most of their packages are the CLI's, already compiled. The PostgreSQL schemas of that
# version are copied from the module beside them (schema/postgresql/v12/...), as the admin-tools
# image has them in /etc/temporal/schema. Like the test server below, a missing one leaves the
# --print exit status alone: only the PostgreSQL tests and `dev:up -- --temporal postgres` need it.
ts_dir="$here/servers/temporal-server"
ts_out=$(binary_dir temporal-server "$ts_dir" go.temporal.io/server "")
ts_version=$(module_version "$ts_dir" go.temporal.io/server)
if [ ! -x "$ts_out/temporal-server" ] && ! $print_only; then
  echo "building temporal-server and temporal-sql-tool $ts_version from the Go module proxy (once; cached in $ts_out) …" >&2
  start=$SECONDS
  rm -rf "$ts_out.tmp" && mkdir -p "$ts_out.tmp"
  with_progress "building temporal-server $ts_version" \
    env -C "$ts_dir" CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$ts_out.tmp/temporal-server" go.temporal.io/server/cmd/server
  with_progress "building temporal-sql-tool $ts_version" \
    env -C "$ts_dir" CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$ts_out.tmp/temporal-sql-tool" go.temporal.io/server/cmd/tools/sql
  mkdir -p "$ts_out.tmp/schema"
  cp -R "$(env -C "$ts_dir" go list -m -f '{{.Dir}}' go.temporal.io/server)/schema/postgresql" "$ts_out.tmp/schema/"
  chmod -R u+w "$ts_out.tmp/schema" # the module cache's files are read-only
  rm -rf "$ts_out" && mv "$ts_out.tmp" "$ts_out"
  echo "built temporal-server and temporal-sql-tool $ts_version in $((SECONDS - start))s" >&2
fi
if [ -x "$ts_out/temporal-server" ]; then
  echo "temporal-server=$ts_out/temporal-server"
  echo "temporal-sql-tool=$ts_out/temporal-sql-tool"
  echo "temporal-schema=$ts_out/schema"
fi

# The Java time-skipping test server (TestWorkflowEnvironment.createTimeSkipping), from Maven
# Central: its runtime classpath, copied by the consumer project scripts/servers/temporal-test-server/
# (pinned in its pom.xml), and a launcher that runs it. Skipped, with a note, without java and mvn.
# With --print, a missing test server only leaves its line out: the exit status stays the Go servers'.
tts_dir="$here/servers/temporal-test-server"
tts_version=$(sed -n 's:.*<temporal-test-server.version>\(.*\)</temporal-test-server.version>.*:\1:p' "$tts_dir/pom.xml")
tts_out="$cache_root/temporal-test-server-$tts_version-$(sha256sum <"$tts_dir/pom.xml" | cut -c1-10)"
if [ -x "$tts_out/temporal-test-server" ]; then
  echo "temporal-test-server=$tts_out/temporal-test-server"
elif ! command -v java >/dev/null || ! command -v mvn >/dev/null; then
  echo "skipping temporal-test-server: it needs java and mvn on PATH" >&2
elif ! $print_only; then
  echo "fetching temporal-test-server $tts_version from Maven Central (once; cached in $tts_out) …" >&2
  start=$SECONDS
  rm -rf "$tts_out.tmp" && mkdir -p "$tts_out.tmp"
  with_progress "fetching temporal-test-server $tts_version" \
    mvn -q -B -f "$tts_dir/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tts_out.tmp/lib" >&2
  # $1 is the port; --enable-time-skipping may follow (the SDK's client unlocks time skipping anyway).
  printf '%s\n' '#!/bin/sh' \
    'exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" -cp "$(dirname "$0")/lib/*" io.temporal.testserver.TestServer "$@"' \
    >"$tts_out.tmp/temporal-test-server"
  chmod +x "$tts_out.tmp/temporal-test-server"
  rm -rf "$tts_out" && mv "$tts_out.tmp" "$tts_out"
  echo "fetched temporal-test-server $tts_version in $((SECONDS - start))s" >&2
  echo "temporal-test-server=$tts_out/temporal-test-server"
fi
exit $missing
