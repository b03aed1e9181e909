// `dispatch-kubeflow codec-server` as a process of its own, configured by its DISPATCH_CODEC_*
// variables as the manifests configure it, with its log lines (JSON on stderr) kept and awaitable.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from './cli-process.js';

export type LogLine = Record<string, unknown> & { message: string };

export interface CodecServerProcess {
  url: string;
  /** Every line it logged so far. */
  lines: LogLine[];
  /** The first line logged from now on that `match` accepts; rejects after `timeoutMs` or when the process exits. */
  next(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

export async function startCodecServerProcess(
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): Promise<CodecServerProcess> {
  const child = spawn(process.execPath, [join(REPO, 'bin/dispatch-kubeflow.js'), 'codec-server'], {
    cwd: REPO,
    env: { ...process.env, DISPATCH_CODEC_LISTEN: '127.0.0.1:0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: LogLine[] = [];
  const waiters = new Set<{ match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }>();
  let stderr = '';
  let partial = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    partial += chunk.toString();
    const complete = partial.split('\n');
    partial = complete.pop()!;
    for (const text of complete.filter((l) => l.trim() !== '')) {
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        continue;
      }
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (!waiter.match(line)) continue;
        waiters.delete(waiter);
        waiter.resolve(line);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const next = (match: (line: LogLine) => boolean, within = timeoutMs) =>
    new Promise<LogLine>((resolve, reject) => {
      const waiter = { match, resolve };
      waiters.add(waiter);
      const timer = setTimeout(
        () => (waiters.delete(waiter), reject(new Error(`no such log line within ${within} ms: ${stderr}`))),
        within,
      );
      void exited.then((code) => reject(new Error(`codec server exited ${code}: ${stderr}`)));
      waiter.resolve = (line) => (clearTimeout(timer), resolve(line));
    });
  const started = await next((l) => l.message === 'codec server started');
  return {
    url: started.url as string,
    lines,
    next,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
