// The Temporal dev server (the `temporal` CLI built from the Go module proxy), with the search
// attributes the workflows set. Two ways to run it: for tests, through @temporalio/testing's
// TestWorkflowEnvironment.createLocal (an ephemeral in-memory server); for dev:up, as a detached
// process with the UI on, which outlives the command that started it.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { SearchAttributes } from '../../src/contract/names.js';
import { freePorts, LIFELINE_SCRIPT, spawnServer, waitFor, type ServerProcess, type SpawnOptions } from './process.js';

export const SEARCH_ATTRIBUTE_KEYS = Object.values(SearchAttributes).map((name) =>
  defineSearchAttributeKey(name, SearchAttributeType.KEYWORD),
);

export const TEMPORAL_NAMESPACE = 'default';

/**
 * The dynamic config the tests, the bench and dev:up run the Temporal server with, and which a
 * deployment's Temporal server should have too (docs/performance.md has the figures):
 * - `history.transferProcessorMaxPollRPS`: the dev server has one history shard, whose transfer
 *   queue reads new tasks at most 20 times a second by default, so each task a Start scheduled
 *   within 50 ms of the previous read waited for the next one: a plain Start's second workflow
 *   task waited ~60 ms to be handed to an idle worker, with 1000 it waits ~4 ms.
 * - `system.enableActivityEagerExecution`: the activity a workflow task schedules comes back in
 *   the reply to that task (the SDK asks for it) instead of through the task queue.
 */
export const TEMPORAL_DYNAMIC_CONFIG: Readonly<Record<string, number | boolean>> = {
  'history.transferProcessorMaxPollRPS': 1000,
  'system.enableActivityEagerExecution': true,
};

/** `temporal server start-dev` arguments for a dynamic config. */
export const dynamicConfigArgs = (config: Readonly<Record<string, number | boolean | string>>): string[] =>
  Object.entries(config).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]);

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * An executable that runs the temporal binary with its output appended to `logFile` and, given a
 * lifeline pid, stops it when that pid is gone. createLocal spawns whatever path it is given, so
 * this is how its server gets a log file and cannot outlive a killed test runner.
 */
export function writeTemporalWrapper(options: { binary: string; logFile: string; lifeline?: number; path: string }): string {
  const run =
    options.lifeline === undefined
      ? `exec ${quote(options.binary)} "$@"`
      : `set -- ${options.lifeline} ${quote(options.binary)} "$@"\n${LIFELINE_SCRIPT}`;
  writeFileSync(options.path, `#!/bin/sh\nexec >>${quote(options.logFile)} 2>&1\n${run}\n`);
  chmodSync(options.path, 0o755);
  return options.path;
}

/**
 * An ephemeral dev server for a test run, through TestWorkflowEnvironment.createLocal. Its startup
 * check gives up after 5 s, which a loaded two-core machine can exceed; one retry covers that.
 */
export async function createLocalTemporal(options: {
  binary: string;
  logDir: string;
  lifeline?: number;
  ui?: boolean;
  /** Default: TEMPORAL_DYNAMIC_CONFIG; `{}` for the dev server's own defaults. */
  dynamicConfig?: Readonly<Record<string, number | boolean>>;
}): Promise<TestWorkflowEnvironment> {
  const path = writeTemporalWrapper({
    binary: options.binary,
    logFile: join(options.logDir, 'temporal.log'),
    lifeline: options.lifeline,
    path: join(options.logDir, 'temporal-wrapper.sh'),
  });
  const create = () =>
    TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path },
        ip: '127.0.0.1',
        namespace: TEMPORAL_NAMESPACE,
        ui: options.ui ?? false,
        searchAttributes: SEARCH_ATTRIBUTE_KEYS,
        log: { format: 'pretty', level: 'warn' },
        extraArgs: dynamicConfigArgs(options.dynamicConfig ?? TEMPORAL_DYNAMIC_CONFIG),
      },
    });
  try {
    return await create();
  } catch {
    return await create();
  }
}

/** The search attributes the workflows need that the server does not list for the namespace. */
export async function missingSearchAttributes(address: string, namespace = TEMPORAL_NAMESPACE): Promise<string[]> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    return Object.values(SearchAttributes).filter((name) => customAttributes?.[name] === undefined);
  } finally {
    await connection.close();
  }
}

/** Resolves once the server answers and lists the search attributes the workflows need. */
export async function temporalReady(address: string, namespace = TEMPORAL_NAMESPACE): Promise<true | undefined> {
  return (await missingSearchAttributes(address, namespace)).length === 0 ? true : undefined;
}

export interface DevTemporal {
  process: ServerProcess;
  /** host:port of the frontend. */
  address: string;
  uiUrl: string;
}

type DevTemporalOptions = Pick<SpawnOptions, 'lifeline' | 'detach'> & {
  binary: string;
  logDir: string;
  port: number;
  uiPort: number;
  /** SQLite file to keep history in; in memory when absent. */
  dbFile?: string;
  /** The HTTP API's port; absent, the server takes port + 1000, which may be taken. */
  httpPort?: number;
  /** Dynamic config beside TEMPORAL_DYNAMIC_CONFIG's (e.g. VERSIONING_TEST_DYNAMIC_CONFIG). */
  dynamicConfig?: Readonly<Record<string, number | boolean | string>>;
};

/**
 * For a test that rolls builds of a worker deployment (docs/versioning.md) and retires the old one
 * within minutes: the server's defaults check a draining version's open workflows every 3 minutes,
 * after a 3-minute grace, and refuse to delete a version whose pollers it saw within 5 minutes.
 * A production server keeps its defaults; the retirement commands are the same, only slower.
 */
export const VERSIONING_TEST_DYNAMIC_CONFIG: Readonly<Record<string, string>> = {
  'matching.wv.VersionDrainageStatusRefreshInterval': '1s',
  'matching.wv.VersionDrainageStatusVisibilityGracePeriod': '1s',
  'matching.PollerHistoryTTL': '5s',
};

/** How many times a dev server that lost a port race is started again on other side ports. */
const BIND_ATTEMPTS = 4;

/**
 * The port a server's log says it could not bind, if it says so. freePorts' ports are free when
 * chosen, but the dev server picks its own internal ports as it starts, and another process (or
 * the server itself) may take one of ours first: seen in a fresh-clone CI as the UI's listener
 * failing with "bind: address already in use".
 */
function portLostToARace(logFile: string): number | undefined {
  let log: string;
  try {
    log = readFileSync(logFile, 'utf8');
  } catch {
    return undefined;
  }
  const match = /listen tcp [\d.]*:(\d+): bind: address already in use/.exec(log);
  return match ? Number(match[1]) : undefined;
}

/**
 * A long-running dev server with the UI on (dev:up, the reliability tests, chaos). The frontend
 * port is kept (clients and a restart depend on it); if the UI's or the HTTP API's port was taken
 * between being chosen and bound, the server is started again with fresh ones.
 */
export async function startDevTemporal(options: DevTemporalOptions): Promise<DevTemporal> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDevTemporalOnce(options);
    } catch (error) {
      const lost = portLostToARace(join(options.logDir, 'temporal.log'));
      if (attempt >= BIND_ATTEMPTS || lost === undefined || lost === options.port) throw error;
      const [uiPort, httpPort] = (await freePorts(2)) as [number, number];
      options = { ...options, uiPort, httpPort };
    }
  }
}

async function startDevTemporalOnce(options: DevTemporalOptions): Promise<DevTemporal> {
  const address = `127.0.0.1:${options.port}`;
  const args = [
    'server',
    'start-dev',
    '--ip=127.0.0.1',
    `--port=${options.port}`,
    `--ui-port=${options.uiPort}`,
    ...(options.httpPort ? [`--http-port=${options.httpPort}`] : []),
    `--namespace=${TEMPORAL_NAMESPACE}`,
    '--log-level=warn',
    ...SEARCH_ATTRIBUTE_KEYS.map((key) => `--search-attribute=${key.name}=Keyword`),
    ...(options.dbFile ? [`--db-filename=${options.dbFile}`] : []),
    ...dynamicConfigArgs({ ...TEMPORAL_DYNAMIC_CONFIG, ...options.dynamicConfig }),
  ];
  const process = spawnServer({
    name: 'temporal',
    command: options.binary,
    args,
    logFile: join(options.logDir, 'temporal.log'),
    lifeline: options.lifeline,
    detach: options.detach,
  });
  await waitFor(() => temporalReady(address), { what: `Temporal at ${address}`, timeoutMs: 60_000, intervalMs: 200, server: process });
  return { process, address, uiUrl: `http://127.0.0.1:${options.uiPort}` };
}
