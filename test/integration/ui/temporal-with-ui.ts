// A Temporal dev server with its Web UI, for the UI test alone: the run's shared server is started
// without the UI (TestWorkflowEnvironment.createLocal). Same binary and search attributes as
// dev:up's, on free ports, tied to this test process's life.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePorts, stopServer, waitFor } from '../../../dev/harness/process.js';
import { startDevTemporal } from '../../../dev/harness/temporal.js';
import { stackInfo } from '../support/context.js';

export interface TemporalWithUi {
  /** host:port of the frontend. */
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

export async function startTemporalWithUi(): Promise<TemporalWithUi> {
  const { temporal, logDir } = stackInfo();
  // Its own folder: the shared server's log is <logDir>/temporal.log.
  const dir = join(logDir, `temporal-ui-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const [port, uiPort] = (await freePorts(2)) as [number, number];
  const server = await startDevTemporal({
    binary: temporal.cli,
    logDir: dir,
    port,
    uiPort,
    lifeline: process.pid,
  });
  await waitFor(async () => ((await fetch(`${server.uiUrl}/api/v1/settings`)).ok ? true : undefined), {
    what: `the Temporal UI at ${server.uiUrl}`,
    timeoutMs: 30_000,
    intervalMs: 200,
    server: server.process,
  });
  return { address: server.address, uiUrl: server.uiUrl, stop: () => stopServer(server.process) };
}
