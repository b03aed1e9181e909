// The CLI against the shared servers: a configuration file for a suite's namespace and its worker's
// task queue (with an admin kubeconfig), and the TEMPORAL_* environment of the shared dev server.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliRun } from '../../support/cli-process.js';
import { stackInfo } from './context.js';
import { writeKubeconfig } from './dispatch.js';
import { kubeAccess } from './kube.js';
import type { DispatchSuite } from './suite.js';

/** A fresh folder holding `config.yaml` for the suite; call once its beforeAll has run. */
export function cliFolder(suite: DispatchSuite, prefix: string): { dir: string; configFile: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const configFile = join(dir, 'config.yaml');
  const kubeconfig = writeKubeconfig(kubeAccess('admin', suite.ns.name));
  writeFileSync(configFile, `namespace: ${suite.ns.name}\nkubeconfig: ${kubeconfig}\ntemporal:\n  taskQueue: ${suite.h.config.temporal.taskQueue}\n`);
  return { dir, configFile };
}

/** `dispatch-kubeflow <args>` with TEMPORAL_* naming the shared Temporal server. */
export function cliOnStack(args: readonly string[], stdin?: string): Promise<CliRun> {
  const env = { ...process.env, TEMPORAL_ADDRESS: stackInfo().temporal.address, TEMPORAL_NAMESPACE: stackInfo().temporal.namespace };
  return runCli(args, { env, ...(stdin === undefined ? {} : { stdin }) });
}
