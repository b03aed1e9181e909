#!/usr/bin/env bash
# Tests what ships (`npm run test:artefact`; `npm test` runs it after lint): the image's tree as
# scripts/build-image-tree.sh makes it (the build, dist/, the workflow bundles, `npm ci --omit=dev`
# with one platform's native module, bin/) in a fresh folder outside the repository, run there
# with plain node and production dependencies only:
#   - the CLI: --help and every command's --help; `render` of a request, the same as the sources
#     render it, and a refusal with exit code 2;
#   - dist/: only src/'s build, every import a built-in, a production dependency or a file of
#     dist/, and every module importable (scripts/artefact/check-dist.mjs);
#   - every recorded history of test/histories/*/ replayed against both production bundles, with
#     the production worker's interceptors and sinks, plus a self-check that an altered history
#     fails (scripts/artefact/replay-corpus.mjs).
# KEEP_ARTEFACT=1 keeps the folder. The npm cache is used first (--prefer-offline).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

work=$(mktemp -d "${TMPDIR:-/tmp}/dispatch-artefact.XXXXXX")
if [[ -n ${KEEP_ARTEFACT:-} ]]; then trap 'echo "artefact kept in $work"' EXIT; else trap 'rm -rf "$work"' EXIT; fi

ms() { echo $(($(date +%s%N) / 1000000)); }
started=$(ms)
step_started=$started
step_name=
step() {
  local now
  now=$(ms)
  [[ -n $step_name ]] && printf '   %s: %d.%01d s\n' "$step_name" $(((now - step_started) / 1000)) $(((now - step_started) % 1000 / 100))
  step_name=$1
  step_started=$now
  [[ -n $step_name ]] && echo "== artefact: $step_name"
  return 0
}
fail() {
  echo "artefact: FAIL: $*" >&2
  exit 1
}
# Runs a command, its output kept in $work/<name>.log and shown only when it fails.
quiet() {
  local name=$1
  shift
  "$@" >"$work/$name.log" 2>&1 || {
    cat "$work/$name.log" >&2
    fail "$name: $*"
  }
}

step "image tree"
# The image's /app, made as the Dockerfile makes it (scripts/build-image-tree.sh: the build, the
# production install with only this platform's native module, bin/ and package.json).
app=$work/app
cp -R scripts/artefact "$work/check"
quiet tree bash scripts/build-image-tree.sh "$app"
grep -E '^ +wrote |^image tree: ' "$work/tree.log"
for dev in tsx typescript vitest @temporalio/testing fast-check; do
  [[ ! -e $app/node_modules/$dev ]] || fail "the production install has the devDependency $dev"
done
echo "$(find "$app/node_modules" -mindepth 1 -maxdepth 2 -name package.json | wc -l) packages at the top level of node_modules, no devDependencies, no src/"

cd "$app"
export NODE_ENV=production
cli() { node bin/dispatch-kubeflow.js "$@"; }

step "CLI from dist"
help=$(cli --help) || fail "dispatch-kubeflow --help exits $?"
[[ $help == *"Start Kubeflow Trainer TrainJobs"* ]] || fail "dispatch-kubeflow --help: no description: $help"
# Every command --help lists, each with its own help.
commands=$(sed -n '/^Commands:/,$p' <<<"$help" | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' | grep -vx help)
[[ -n $commands ]] || fail "dispatch-kubeflow --help lists no commands"
for command in $commands; do
  out=$(cli "$command" --help) || fail "dispatch-kubeflow $command --help exits $?"
  [[ $out == "Usage: dispatch-kubeflow $command "* ]] || fail "dispatch-kubeflow $command --help: $out"
done
echo "--help and the --help of $(wc -w <<<"$commands") commands: $(tr '\n' ' ' <<<"$commands")"

fixtures=$repo/test/fixtures
render=(render --config "$fixtures/config/contract-example.yaml" --request "$fixtures/requests/contract-example.json")
rendered=$(cli "${render[@]}" --runtime "$repo/test/golden/inputs/torch-distributed.yaml") || fail "render exits $?"
[[ $rendered == *"kind: TrainJob"* && $rendered == *"kind: TrainingRuntime"* ]] || fail "render: no TrainJob and runtime copy: $rendered"
# The same as the sources render it (bin/ runs src/ through tsx in the repository).
from_sources=$(cd "$repo" && NODE_ENV= node bin/dispatch-kubeflow.js "${render[@]}" --runtime test/golden/inputs/torch-distributed.yaml)
[[ $rendered == "$from_sources" ]] || fail "render from dist differs from render from src: $(diff <(echo "$rendered") <(echo "$from_sources") | head -20)"
echo "render: the runtime copy and the TrainJob ($(wc -l <<<"$rendered") lines), the same as from src/"
set +e
refused=$(cli "${render[@]}" --runtime "$repo/test/golden/inputs/dispatch-kind.yaml" 2>&1)
code=$?
set -e
[[ $code == 2 && $refused == "ErrUnsupported: refused at step 4"* ]] || fail "render of a refused request: exit $code (want 2): $refused"
echo "render refused: exit 2, ${refused%%$'\n'*}"

step "dist imports"
node "$work/check/check-dist.mjs" --root "$app" --sources "$repo/src" || fail "dist/ (above)"

step "replay of test/histories"
node "$work/check/replay-corpus.mjs" --root "$app" --histories "$repo/test/histories" --self-check || fail "replay (above)"

step ""
total=$(($(ms) - started))
printf '== artefact: passed in %d.%01d s\n' $((total / 1000)) $((total % 1000 / 100))
