#!/usr/bin/env bash
# The image's /app without Docker: what the Dockerfile's three stages leave in the runtime stage,
# made with the same commands into a folder (no Docker engine runs where the tests run):
#   build    the TypeScript build (dist/) and the two workflow bundles, from this checkout (whose
#            node_modules is the build stage's `npm ci`)
#   deps     package.json and package-lock.json, `npm ci --omit=dev`, then
#            scripts/image/prune-node-modules.mjs (only this platform's native module of
#            @temporalio/core-bridge; the image's is linux x64 glibc)
#   runtime  node_modules, dist/, bin/ and package.json; nothing else
#
#   scripts/build-image-tree.sh <folder>     the folder must not exist, or be empty
# It prints the tree's size in bytes last ("image tree: <bytes> bytes in <folder>"). The npm cache
# is used first (--prefer-offline).
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: scripts/build-image-tree.sh <folder>" >&2; exit 2; }
cd "$(dirname "$0")/.."
repo=$PWD
mkdir -p "$1"
tree=$(cd "$1" && pwd)
[[ -z "$(ls -A "$tree")" ]] || { echo "build-image-tree: $tree is not empty" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/dispatch-image-tree.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Runs a command with its output kept in a log, shown only when it fails.
quiet() {
  local name=$1
  shift
  "$@" >"$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; echo "build-image-tree: $name failed: $*" >&2; exit 1; }
}

echo "== image tree: build (dist/ and the workflow bundles)"
quiet build npx tsc -p tsconfig.build.json --outDir "$tree/dist"
quiet bundle npx tsx scripts/build-workflow-bundle.ts "$tree"
sed 's/^/   /' "$work/bundle.log"

echo "== image tree: production dependencies"
deps=$work/deps
mkdir -p "$deps"
cp package.json package-lock.json "$deps/"
(cd "$deps" && quiet install npm ci --omit=dev --no-audit --no-fund --prefer-offline)
node scripts/image/prune-node-modules.mjs "$deps/node_modules" | sed 's/^/   /'

echo "== image tree: runtime"
mv "$deps/node_modules" "$tree/node_modules"
cp -R "$repo/bin" "$tree/bin"
cp package.json "$tree/"
echo "image tree: $(du -sb "$tree" | cut -f1) bytes in $tree"
