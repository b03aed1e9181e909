// The `dispatch-kubeflow` command. Exit codes: 0 success, 2 a typed refusal (ErrInvalid, ...),
// 1 anything else (unreadable file, no connection), always with one clear line on stderr.
import { Command, Option } from 'commander';
import type { Config } from '../model/config.js';
import { DispatchError } from '../model/errors.js';
import { loadConfig, readDocument } from '../config/load-config.js';
import { formatRefusal, formatRendered, renderOffline, runtimeFromManifest } from './render-command.js';
import { OPERATIONS, type Operation } from '../contract/names.js';
import { refFromOptions, type RefOptions } from './trainjob-ref.js';
import { addCodecServerOptions, type CodecServerCommandOptions } from '../codec/command-options.js';
import type { WorkerCommandOptions } from './worker-command.js';

type Output = 'yaml' | 'json';
const outputOption = () => new Option('--output <format>', 'output format').choices(['yaml', 'json']).default('yaml');

/** Runs an action, turning its failure into the exit code and output the contract of the CLI gives. */
async function act(output: Output, action: () => Promise<string>): Promise<void> {
  try {
    process.stdout.write(await action());
  } catch (error) {
    if (error instanceof DispatchError) {
      const { stdout, stderr } = formatRefusal(error, output);
      process.stdout.write(stdout);
      process.stderr.write(stderr);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`dispatch-kubeflow: ${(error as Error).message.split('\n')[0]}\n`);
    process.exitCode = 1;
  }
}

/** Without --runtime: step 2 against the cluster, after the allow-list, as Start does it. */
async function runtimeFromCluster(config: Config, request: unknown) {
  const { validate } = await import('../core/start/validate.js');
  const { allowListRefusal } = await import('../core/start/refusals.js');
  const { createKubeClients, loadKubeConfig } = await import('../kube/clients.js');
  const { ObjectCalls } = await import('../kube/objects.js');
  const { fetchRuntime } = await import('../kube/read-runtime.js');
  const valid = validate(request);
  const notAllowed = allowListRefusal(valid.runtime, config);
  if (notAllowed) throw notAllowed;
  const calls = new ObjectCalls(createKubeClients(loadKubeConfig(config.kubeconfig)), { requestTimeoutMs: 10_000 });
  return { runtime: await fetchRuntime(calls, config.namespace, valid.runtime), name: valid.runtime };
}

export function buildCli(): Command {
  const program = new Command('dispatch-kubeflow')
    .description('Start Kubeflow Trainer TrainJobs as durable Temporal workflows')
    .showHelpAfterError();

  addRenderCommand(program);
  // The commands that talk to Temporal and Kubernetes load their modules lazily, so that `render`
  // starts fast and works without either.
  addServerCommands(program);
  addRemoteCommands(program);
  addOperationCommands(program);
  return program;
}

/** `render`: the runtime copy and TrainJob of a request, offline. */
function addRenderCommand(program: Command): void {
  program
    .command('render')
    .description('render the runtime copy and TrainJob of a request, without creating anything')
    .requiredOption('--config <file>', 'configuration file (YAML or JSON)')
    .requiredOption('--request <file>', 'StartRequest (YAML or JSON)')
    .option('--runtime <file>', 'TrainingRuntime or ClusterTrainingRuntime manifest; read from the cluster when absent')
    .addOption(outputOption())
    .action(async (opts: { config: string; request: string; runtime?: string; output: Output }) =>
      act(opts.output, async () => {
        const config = await loadConfig(opts.config);
        const request = await readDocument(opts.request);
        const source = opts.runtime
          ? runtimeFromManifest(await readDocument(opts.runtime), opts.runtime)
          : await runtimeFromCluster(config, request);
        return formatRendered(renderOffline(request, source, config), opts.output);
      }),
    );
}

/** The long-running processes: the worker and the codec server. */
function addServerCommands(program: Command): void {
  program
    .command('worker')
    .description('run the worker: the workflows (Start, Capabilities, the preflight probe, Open, Hold, Release, Stop, Watch), their activities, the preflight, and in Kueue mode the admission check controller')
    .requiredOption('--config <file>', 'configuration file')
    .option('--preflight-interval <duration>', 'how often the preflight runs (Go duration)', '5m')
    .option('--metrics <address>', "the Temporal SDK's Prometheus metrics bind address", '0.0.0.0:9464')
    .option('--dispatch-metrics <address>', "dispatch's Prometheus metrics (Starts, steps, compensations) bind address", '0.0.0.0:9465')
    .option('--health <address>', 'GET /readyz and GET /livez bind address', '0.0.0.0:8081')
    .option('--log-level <level>', 'the lowest level logged: trace, debug, info, warn or error (default: DISPATCH_LOG_LEVEL, else info)')
    .option('--tls-cert <file>', 'serve the metrics and health endpoints over HTTPS with this PEM certificate (chain), re-read when it changes')
    .option('--tls-key <file>', "the certificate's PEM private key")
    .option('--deployment-name <name>', 'the Temporal worker deployment this worker is a build of (docs/versioning.md); with --build-id, the worker is versioned', process.env.DISPATCH_DEPLOYMENT_NAME)
    .option('--build-id <id>', "this worker's build id in the deployment (the image's version)", process.env.DISPATCH_BUILD_ID)
    .action(async (opts: WorkerCommandOptions & { config: string }) =>
      act('yaml', async () => {
        const { runWorkerCommand } = await import('./worker-command.js');
        await runWorkerCommand(await loadConfig(opts.config), opts);
        return '';
      }),
    );

  const codecServer = program
    .command('codec-server')
    .description('serve the payload codec to the Temporal UI and CLI (POST /encode, POST /decode), with the keys of DISPATCH_CODEC_KEYS, to callers with a valid bearer token');
  addCodecServerOptions(codecServer).action(async (opts: CodecServerCommandOptions) =>
    act('yaml', async () => {
      const { runCodecServer } = await import('../codec/command.js');
      await runCodecServer(opts);
      return '';
    }),
  );
}

/** The calls of a caller through Temporal: start, check-runtime, probe, find. */
function addRemoteCommands(program: Command): void {
  program
    .command('start')
    .description('start a TrainJob from a StartRequest')
    .requiredOption('--config <file>', 'configuration file')
    .requiredOption('--request <file>', 'StartRequest (YAML or JSON)')
    .option('--wait', 'wait for the result', false)
    .addOption(outputOption())
    .action(async (opts: { config: string; request: string; wait: boolean; output: Output }) =>
      act(opts.output, async () => {
        const { startCommand } = await import('./remote-commands.js');
        return startCommand(await loadConfig(opts.config), await readDocument(opts.request), opts);
      }),
    );

  program
    .command('check-runtime')
    .description('check a runtime against the rules (TrainJobCapabilities)')
    .requiredOption('--config <file>', 'configuration file')
    .argument('<runtime>', '<Kind>/<name>, e.g. ClusterTrainingRuntime/dispatch-kind')
    .addOption(outputOption())
    .action(async (runtime: string, opts: { config: string; output: Output }) =>
      act(opts.output, async () => {
        const { checkRuntimeCommand } = await import('./remote-commands.js');
        return checkRuntimeCommand(await loadConfig(opts.config), runtime, opts);
      }),
    );

  program
    .command('probe')
    .description('run the preflight probe (ProbeBackend) and print the gates')
    .requiredOption('--config <file>', 'configuration file')
    .addOption(outputOption())
    .action(async (opts: { config: string; output: Output }) =>
      act(opts.output, async () => {
        const { probeCommand } = await import('./remote-commands.js');
        return probeCommand(await loadConfig(opts.config), opts);
      }),
    );

  program
    .command('find')
    .description('find the TrainJob of a job submission: InFlight, Present or Absent')
    .requiredOption('--config <file>', 'configuration file')
    .argument('<job>', 'JobID')
    .argument('<submission>', 'submission number')
    .addOption(outputOption())
    .action(async (job: string, submission: string, opts: { config: string; output: Output }) =>
      act(opts.output, async () => {
        const { findCommand } = await import('./remote-commands.js');
        return findCommand(await loadConfig(opts.config), job, Number(submission), opts);
      }),
    );
}

/** What each operation after Start does (docs/contract.md §9), as its --help says it. */
const OPERATION_HELP: Record<Operation, string> = {
  open: "open a started TrainJob so that it runs (OpenTrainJob): plain mode unsuspends it, Kueue mode takes dispatch's gate out",
  hold: 'hold a TrainJob (HoldTrainJob): suspend it and mark it held; in Kueue mode deactivate its Workload, freeing its quota',
  release: 'release a held TrainJob (ReleaseTrainJob): undo its Hold',
  stop: 'stop a TrainJob (StopTrainJob): delete it by UID, with its runtime copy and, in Kueue mode, its Workload',
  watch: 'wait until a TrainJob has ended (WatchTrainJob): its Outcome, Succeeded, Failed or Absent',
};

/** The options naming the TrainJob an operation acts on (trainjob-ref.ts). */
function withRefOptions(command: Command): Command {
  return command
    .requiredOption('--config <file>', 'configuration file')
    .addOption(
      new Option('--ref <file>', 'the TrainJob: a file (YAML or JSON, - for stdin) with a TrainJobRef, or what start --wait, an operation or find printed about it').conflicts([
        'name',
        'uid',
        'namespace',
      ]),
    )
    .option('--name <name>', "the TrainJob's name (with --uid)")
    .option('--uid <uid>', "the TrainJob's UID (with --name)")
    .option('--namespace <namespace>', "the TrainJob's namespace (default: the configuration's)");
}

type OperationOptions = RefOptions & { config: string; wait: boolean; output: Output };

function addOperationCommands(program: Command): void {
  for (const operation of OPERATIONS) {
    withRefOptions(program.command(operation).description(OPERATION_HELP[operation]))
      .option('--wait', 'wait for the result', false)
      .addOption(outputOption())
      .action(async (opts: OperationOptions) =>
        act(opts.output, async () => {
          const config = await loadConfig(opts.config);
          const ref = await refFromOptions(opts, config.namespace);
          const { operationCommand } = await import('./operation-commands.js');
          return operationCommand(config, operation, ref, opts);
        }),
      );
  }

  withRefOptions(program.command('status').description("read a TrainJob's state (phase, held, reasons) from the cluster, without a workflow"))
    .addOption(outputOption())
    .action(async (opts: Omit<OperationOptions, 'wait'>) =>
      act(opts.output, async () => {
        const config = await loadConfig(opts.config);
        const ref = await refFromOptions(opts, config.namespace);
        const { statusCommand } = await import('./operation-commands.js');
        return statusCommand(config, ref, opts);
      }),
    );
}

export async function main(argv = process.argv): Promise<void> {
  await buildCli().parseAsync(argv);
}
