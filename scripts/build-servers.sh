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

# tool | binary | package built | version shown
tools=(
  "etcd|etcd|go.etcd.io/etcd/server/v3"
  "temporal|temporal|github.com/temporalio/cli/cmd/temporal"
  "kube-apiserver|kube-apiserver|k8s.io/kubernetes/cmd/kube-apiserver"
  "kube-controller-manager|kube-controller-manager|k8s.io/kubernetes/cmd/kube-controller-manager"
)

module_version() { # the pinned version of the module that provides the tool
  local dir=$1 pkg=$2 mod
  case $pkg in
    k8s.io/kubernetes/*) mod=k8s.io/kubernetes ;;
    github.com/temporalio/cli/*) mod=github.com/temporalio/cli ;;
    *) mod=$pkg ;;
  esac
  awk -v m="$mod" '$1==m {print $2; exit} $1=="require" && $2==m {print $3; exit}' "$dir/go.mod"
}

binary_dir() { # cache folder for one tool: <tool>-<version>-<hash of go.mod and go.sum>
  local tool=$1 dir=$2 version hash
  version=$(module_version "$dir" "$3")
  hash=$(cat "$dir/go.mod" "$dir/go.sum" | sha256sum | cut -c1-10)
  echo "$cache_root/$tool-$version-$hash"
}

with_progress() { # run a command, printing elapsed time every 30 s so a long build is visibly alive
  local label=$1; shift
  local start=$SECONDS
  "$@" &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -0 "$pid" 2>/dev/null && echo "  … still building $label ($((SECONDS - start))s elapsed)" >&2
  done
  wait "$pid"
}

missing=0
for entry in "${tools[@]}"; do
  IFS='|' read -r tool binary pkg <<<"$entry"
  dir="$here/servers/$tool"
  out=$(binary_dir "$tool" "$dir" "$pkg")
  if [ -x "$out/$binary" ]; then
    echo "$tool=$out/$binary"
    continue
  fi
  if $print_only; then missing=1; continue; fi
  version=$(module_version "$dir" "$pkg")
  echo "building $tool $version from the Go module proxy (once; cached in $out) …" >&2
  start=$SECONDS
  mkdir -p "$out.tmp"
  # -trimpath and no VCS stamping keep the build independent of where the repo is checked out.
  with_progress "$tool $version" \
    env -C "$dir" CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$out.tmp/$binary" "$pkg"
  rm -rf "$out" && mv "$out.tmp" "$out"
  echo "built $tool $version in $((SECONDS - start))s" >&2
  echo "$tool=$out/$binary"
done
exit $missing
