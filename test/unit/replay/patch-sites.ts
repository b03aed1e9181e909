// Which patch sites a replay of the corpus reaches, and with which answer: src/workflows bundled
// with each of its `patched()` calls instrumented (patch-scan.ts instrumentPatchCalls) to report
// its site, id and answer through the patchSites sink (patch-site-sink.ts), then every history
// replayed against that bundle with Worker.runReplayHistories, the sink called during replay.
// The instrumented call answers what patched() answered, so the replay is the replay test's.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker, type InjectedSinks, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { quietLogger, recordedBuildBundle } from './builds.js';
import { patchIds, type RecordedHistory } from './corpus.js';
import { REPO_ROOT, sha256 } from './history-sums.js';
import { instrumentPatchCalls, workflowTypeOf, type ReplayedHistory, type SiteReport } from './patch-scan.js';
import type { PatchSiteSinks } from './patch-site-sink.js';

export const SRC_WORKFLOWS = join(REPO_ROOT, 'src', 'workflows');
const SINK = fileURLToPath(new URL('./patch-site-sink.ts', import.meta.url));
const LOADER = fileURLToPath(new URL('./loader/patch-site-loader.cjs', import.meta.url));
const REPORT = '__reportPatchSite';

/** A source of `root`/src/workflows as the instrumented bundle compiles it, its sites named from `root`. */
export const instrumentSource = (source: string, path: string, root = REPO_ROOT): string =>
  instrumentPatchCalls(
    relative(root, path),
    source,
    REPORT,
    `import { reportPatchSite as ${REPORT} } from ${JSON.stringify(SINK)};`,
  );

/** What the instrumentation is made of: a bundle cached by a recorded build's commit is made again when it changes. */
export const INSTRUMENTATION_FILES = [
  fileURLToPath(new URL('./patch-sites.ts', import.meta.url)),
  fileURLToPath(new URL('./patch-scan.ts', import.meta.url)),
  SINK,
  LOADER,
];

/**
 * src/workflows (or the workflows of `workflowsPath`, for a test) with every patched() call of
 * src/workflows reporting; or, with `root`, another tree's (a recorded build's, taken from git), its
 * sites named from that root as the scanner names them there.
 */
export function instrumentedBundle(
  workflowsPath = join(SRC_WORKFLOWS, 'index.ts'),
  root = REPO_ROOT,
): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath,
    logger: quietLogger,
    webpackConfigHook: (config) => {
      // Before swc-loader (enforce: 'pre'): the TypeScript source is what instrumentPatchCalls reads.
      config.module?.rules?.push({
        test: /\.ts$/,
        include: join(root, 'src', 'workflows'),
        enforce: 'pre',
        use: [{ loader: LOADER, options: { transform: (source: string, path: string) => instrumentSource(source, path, root) } }],
      });
      return config;
    },
  });
}

/** A recorded build's src/workflows instrumented as today's is, cached by its commit as its plain bundle is (builds.ts). */
export const recordedSitesBundle = (commit: string): Promise<{ code: string }> =>
  recordedBuildBundle(commit, {
    kind: 'patch-sites',
    salt: sha256(INSTRUMENTATION_FILES.map((file) => readFileSync(file, 'utf8')).join('\0')),
    make: (root) => instrumentedBundle(join(root, 'src', 'workflows', 'index.ts'), root),
  });

export interface SiteReplay {
  histories: ReplayedHistory[];
  /** "<name>: <error>" of each history that did not replay. */
  failures: string[];
}

/** Replays `histories` against an instrumented bundle and collects what each reported. */
export async function replaySites(bundle: { code: string }, histories: RecordedHistory[]): Promise<SiteReplay> {
  const reports = new Map<string, SiteReport[]>(histories.map(({ name }) => [name, []]));
  const sinks: InjectedSinks<PatchSiteSinks> = {
    patchSites: {
      reached: {
        fn: (info, site, id, answer) => {
          reports.get(info.workflowId)?.push({ site, id, answer });
        },
        callDuringReplay: true,
      },
    },
  };
  const failures: string[] = [];
  const results = Worker.runReplayHistories(
    { workflowBundle: bundle, replayName: 'patch-sites', sinks },
    histories.map(({ name, history }) => ({ workflowId: name, history })),
  );
  for await (const result of results)
    if (result.error) failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
  return {
    histories: histories.map(({ name, history }) => ({
      name,
      workflowType: workflowTypeOf(history),
      patches: patchIds(history),
      reached: reports.get(name) ?? [],
    })),
    failures,
  };
}
