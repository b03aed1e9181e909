// `npm start`: the main job on the embedded default. With no configuration it brings up the local
// stack (`npm run dev:up`: Temporal dev server with its UI, and the local cluster with the real
// JobSet, Trainer and Kueue controllers, sample runtimes and queues), runs a worker, and runs an
// example job from Start through Open to its outcome (Watch), printing each workflow's Temporal UI
// link and answer. The stack stays up (`npm run dev:down`).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { DispatchKubeflowClient, typed } from '../src/client/dispatch-client.js';
import { loadConfig, parseConfig, readDocument } from '../src/config/load-config.js';
import type { Outcome, TrainJobRef, TrainJobState } from '../src/model/operations.js';
import type { StartRequest } from '../src/model/request.js';
import type { StartResult } from '../src/model/results.js';
import { createDispatchWorker } from '../src/worker/dispatch-worker.js';
import { randomJobId } from '../src/client/job-id.js';

const HELP = `Usage: npm start [-- --config FILE] [-- --request FILE]

Runs one job from Start to its outcome with a worker of its own: StartTrainJob on an example
request (its TrainJob's ref), OpenTrainJob (the TrainJob's state: it now runs), then
WatchTrainJob (its outcome: Succeeded, Failed or Absent), each workflow's Temporal UI link
printed as it starts. The job really runs on the cluster it is given.

With no --config and no TEMPORAL_ADDRESS, it uses the embedded default: it runs \`npm run dev:up\`
(a local Temporal dev server with its Web UI, and a local Kubernetes cluster with the real JobSet,
Trainer and Kueue controllers and webhooks, a scheduler, simulated GPU nodes, the sample runtimes
and Kueue queues), and reads .dev/env. The stack stays up; \`npm run dev:down\`
stops it.

To use a real cluster and Temporal instead:
  TEMPORAL_ADDRESS=temporal.example:7233 TEMPORAL_NAMESPACE=ml \\
  npm start -- --config my-config.yaml --request my-request.json
where my-config.yaml follows docs/schema/config.schema.json (namespace, runtimes, mode, kubeconfig, ...) and the
connection to Temporal comes from the standard TEMPORAL_* variables (TEMPORAL_API_KEY,
TEMPORAL_TLS_*, or a profile from TEMPORAL_CONFIG_FILE). The kubeconfig is the config's
'kubeconfig', else KUBECONFIG / ~/.kube/config, else the in-cluster service account.
`;

const root = join(import.meta.dirname, '..');

function devEnv(): Record<string, string> {
  execFileSync('npm', ['run', '--silent', 'dev:up'], { cwd: root, stdio: 'inherit' });
  const file = join(root, '.dev', 'env');
  if (!existsSync(file)) throw new Error('npm run dev:up did not write .dev/env');
  const env: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^(?:export\s+)?([A-Z_]+)=['"]?(.*?)['"]?$/.exec(line.trim());
    if (match) env[match[1]!] = match[2]!;
  }
  return env;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { config: { type: 'string' }, request: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const embedded = !values.config && !process.env.TEMPORAL_ADDRESS;
  const env = embedded ? devEnv() : (process.env as Record<string, string>);
  const address = env.TEMPORAL_ADDRESS ?? 'localhost:7233';
  const namespace = env.TEMPORAL_NAMESPACE ?? 'default';
  const config = values.config
    ? await loadConfig(values.config)
    : parseConfig({ namespace: env.K8S_NAMESPACE ?? 'dispatch', kubeconfig: env.KUBECONFIG ?? '' });

  const request = (await readDocument(values.request ?? join(root, 'deploy', 'examples', 'start-request.json'))) as StartRequest;
  // A fresh JobID unless a request was given, so that `npm start` can run again and again.
  if (!values.request) request.job = randomJobId();

  // The worker's own chatter (bundling, state changes) is not what this command is for.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address });
  const clientConnection = await Connection.connect({ address });
  const client = new Client({ connection: clientConnection, namespace });
  const worker = await createDispatchWorker({ config, connection, namespace, client });
  // The whole worker (its preflight loop, the admission check controller in Kueue mode, and the
  // watch-fed lists, which run() closes): worker.worker.run() alone left the lists' watches open,
  // and they held the process for a minute after its work was done.
  //
  // Ctrl-C (or SIGTERM) reaches the Temporal runtime, which stops the worker; with no worker left
  // to run the workflows, their results would never come, and the client would poll for them until
  // a second Ctrl-C. So every client call made here runs under a signal that the worker's end
  // aborts: whatever still waits then (a result, this script's preflight) is cancelled at once.
  // The worker runs outside that context: its own calls (wakes, preflights) end with its shutdown,
  // and the client adds a listener to the context's signal per call, never removed (Node warned of
  // a leak once the worker's calls had added 11).
  const workerEnded = new AbortController();
  const running = worker.run().finally(() => workerEnded.abort());
  let done = false;
  await clientConnection.withAbortSignal(workerEnded.signal, async () => {
    try {
      const gates = await worker.preflight();
      console.log(`preflight: reach=${gates.reach} write=${gates.write} start=${gates.start}${gates.reasons.length ? ` (${gates.reasons.join('; ')})` : ''}`);
      const dispatch = new DispatchKubeflowClient(client, { namespace: config.namespace, taskQueue: config.temporal.taskQueue });
      /** Prints the workflow's id and UI link, then waits for its result (a failure as its typed error). */
      const follow = async <T>(handle: WorkflowHandleWithFirstExecutionRunId): Promise<T> => {
        const ui = env.TEMPORAL_UI_URL ? `${env.TEMPORAL_UI_URL}/namespaces/${namespace}/workflows/${encodeURIComponent(handle.workflowId)}` : '(no UI URL known)';
        console.log(`workflow ${handle.workflowId}\n  ${ui}`);
        return (await handle.result().catch((e: unknown) => Promise.reject(typed(e)))) as T;
      };

      const result = await follow<StartResult>(await dispatch.submit(request));
      console.log(`  Start: TrainJob ${result.ref} (uid ${result.uid}), mode ${result.mode}${result.weakened ? `, weakened: ${result.weakened}` : ''}`);
      const ref: TrainJobRef = { namespace: result.namespace, name: result.name, uid: result.uid };
      const opened = await follow<TrainJobState>(await dispatch.submitOperation('open', ref));
      console.log(`  Open: ${opened.phase}${opened.held ? ' (held)' : ''}: ${opened.reasons.join('; ')}`);
      const outcome = await follow<Outcome>(await dispatch.submitOperation('watch', ref));
      const exit = outcome.exitCode === undefined ? '' : `, exit code ${outcome.exitCode}`;
      console.log(`  Watch: ${outcome.phase}, ${outcome.reason}${outcome.message ? ` (${outcome.message})` : ''}${exit}, at ${outcome.finishedAt}`);
      done = true;
    } catch (error) {
      if (!workerEnded.signal.aborted) throw error;
    } finally {
      worker.shutdown();
      await running;
      await clientConnection.close();
      await connection.close();
    }
  });
  if (!done) {
    console.error('npm start: interrupted: the worker stopped before the job reached its outcome; its workflows go on when a worker polls again');
    process.exitCode = 130;
    return;
  }
  if (embedded) console.log('The local stack is still up: `npm run dev:status`, `npm run dev:down`.');
}

main().catch((error: unknown) => {
  console.error(`npm start: ${(error as Error).message.split('\n')[0]}`);
  process.exitCode = 1;
});
