// The run's Temporal dev server: reachable from a test file, with the workflows' search attributes.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePorts, stopServer } from '../../../dev/harness/process.js';
import { startDevTemporal, temporalReady } from '../../../dev/harness/temporal.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { SearchAttributes } from '../../../src/contract/names.js';
import { stackInfo } from '../support/context.js';
import { temporalEnv } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await temporalEnv();
});
afterAll(async () => env?.teardown());

it('registers the search attributes the workflows set, all Keyword', async () => {
  const { customAttributes } = await env.connection.operatorService.listSearchAttributes({ namespace: stackInfo().temporal.namespace });
  for (const name of Object.values(SearchAttributes)) expect(customAttributes?.[name], name).toBeDefined();
  // INDEXED_VALUE_TYPE_KEYWORD
  expect(new Set(Object.values(SearchAttributes).map((n) => customAttributes?.[n]))).toEqual(new Set([2]));
});

it('gives the temporal CLI path for tests that drive it', () => {
  expect(stackInfo().temporal.cli).toMatch(/temporal$/);
});

// The fresh-clone CI of 29a848c lost the reliability suite to this: the dev server's UI could not
// bind a port freePorts had chosen ("bind: address already in use") and the server exited.
it('a dev server whose UI port is taken starts again on another, keeping its frontend port', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dispatch-temporal-bind-'));
  const squatter = createServer();
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  const taken = (squatter.address() as AddressInfo).port;
  const [port] = await freePorts(1);
  try {
    const server = await startDevTemporal({ binary: stackInfo().temporal.cli, logDir: dir, port: port!, uiPort: taken, lifeline: process.pid });
    try {
      expect(server.address).toBe(`127.0.0.1:${port}`);
      expect(server.uiUrl).not.toBe(`http://127.0.0.1:${taken}`);
      expect(await temporalReady(server.address)).toBe(true);
    } finally {
      await stopServer(server.process);
    }
  } finally {
    squatter.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);
