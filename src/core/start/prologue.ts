// The fixed POSIX sh prologue every TrainJob's command starts with (docs/contract.md §3). The job's
// command and arguments arrive as the script's positional parameters and are run with
// `exec "$@"`, so they reach the process byte for byte and are never re-parsed by a shell.
import { Dispatch, EnvVars } from '../../model/constants.js';

const WORKDIR = EnvVars.workDir;

/*
 * - An empty DISPATCH_K8S_WORKDIR counts as unset, as an empty WorkDir does in the JobSpec.
 * - `CDPATH=` keeps cd from searching CDPATH and printing the directory on stdout.
 * - cd's own message is dropped so that a failure writes exactly one line on stderr; a WorkDir
 *   containing a newline is not echoed, for the same reason.
 */
export const PROLOGUE = `if [ -n "\${${WORKDIR}-}" ] && ! CDPATH= cd -- "$${WORKDIR}" 2>/dev/null; then
  case $${WORKDIR} in
  *'
'*) printf '%s: cannot enter ${WORKDIR}\\n' "$0" >&2 ;;
  *) printf '%s: cannot enter ${WORKDIR} %s\\n' "$0" "$${WORKDIR}" >&2 ;;
  esac
  exit ${Dispatch.workDirExitCode}
fi
exec "$@"
`;

/** spec.trainer.command: `/bin/sh -c <prologue> dispatch-prologue <command...>`. */
export function trainerCommand(command: readonly string[]): string[] {
  return ['/bin/sh', '-c', PROLOGUE, Dispatch.prologueName, ...command];
}
