// The real `bin/dispatch-kubeflow.js` run as a process, as an operator runs it: its exit code and
// what it printed, with an optional standard input (for `--ref -`). In a checkout the bin runs
// src/ through tsx; each run costs about a second.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(REPO, 'bin/dispatch-kubeflow.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; stdin?: string } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: REPO,
      env: options.env ?? process.env,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  });
}
