// `temporal workflow show` of one workflow on the run's Temporal, as JSON, through a codec server:
// how an operator reads a history with the CLI (`--codec-endpoint`, `--codec-auth`).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { stackInfo } from './context.js';

/** Its stdout; rejects (with the error's stdout, when any) if the CLI fails. */
export async function workflowShow(
  workflowId: string,
  codecEndpoint: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const { cli, address, namespace } = stackInfo().temporal;
  const args = [
    'workflow',
    'show',
    '--workflow-id',
    workflowId,
    '--address',
    address,
    '--namespace',
    namespace,
  ];
  const { stdout } = await promisify(execFile)(
    cli,
    [...args, '--codec-endpoint', codecEndpoint, ...extra, '--output', 'json'],
    { env },
  );
  return stdout;
}
