# Sourced by the scripts that run long, quiet commands (a cold build or download).
# with_progress "<what>" <command...>: runs the command, printing "… still <what> (Ns elapsed)"
# on stderr every 30 s so that it is visibly alive; answers its exit status.
with_progress() {
  local label=$1; shift
  local start=$SECONDS
  "$@" &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -0 "$pid" 2>/dev/null && echo "  … still $label ($((SECONDS - start))s elapsed)" >&2
  done
  wait "$pid"
}
