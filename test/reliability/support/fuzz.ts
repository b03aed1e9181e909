// fast-check arbitraries for the bad-input fuzz (docs/reliability.md): StartRequests and
// configurations that are valid, arbitrary JSON, and valid ones put through structure-aware
// mutations (a field deleted, retyped, set to a boundary or hostile value, an unknown or reserved
// key added, an array or map grown past a limit). Everything is JSON, round-tripped, because that
// is what reaches the workflow (plain JSON payloads) and the configuration loader (YAML/JSON).
import fc from 'fast-check';
import { Extensions } from '../../../src/model/constants.js';
import { requestArb } from '../../golden/requests.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What a JSON payload becomes on the other side: NaN and Infinity become null, -0 becomes 0, undefined goes. */
export const viaJson = (value: unknown): Json => JSON.parse(JSON.stringify(value ?? null)) as Json;

/** Sets an own property, even "__proto__" (plain assignment would set the prototype instead). */
function setOwn(object: Record<string, Json>, key: string, value: Json): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

export const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\n',
  '\r\n',
  '$(id)',
  '`id`',
  "'; rm -rf / #",
  '"',
  '\\',
  '${PATH}',
  '-',
  '--',
  '*',
  '..',
  '/',
  's3://',
  's3:///key',
  'é',
  '\u202e',
  '\ufeff',
  '\ud800',
  '😀',
  'DISPATCH_JOB_ID',
  '__proto__',
  'constructor',
  'x'.repeat(300),
  '0',
  '-1',
  '1e3',
  'true',
  'null',
  '2h30m',
  '-5s',
  '1ns',
  '999us',
  '9999999999h',
];

export const ODD_NUMBERS = [
  -1,
  0,
  1,
  -0,
  0.5,
  1.5,
  -0.5,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  1e308,
  -1e308,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  18_000_000,
  18_000_001,
  999_999,
  1_000_000,
  124,
  125,
  121,
  122,
];

const KEYS = [
  'job',
  'generation',
  'submission',
  'attempt',
  'spec',
  'native',
  'name',
  'command',
  'env',
  'workDir',
  'nodes',
  'gpusPerNode',
  'procsPerNode',
  'timeLimit',
  'checkpoint',
  'recovery',
  'extensions',
  'policy',
  'ref',
  'kind',
  'requeue',
  'restart',
  Extensions.image,
  Extensions.runtimeRef,
  Extensions.sharedCheckpoint,
  'kubeflow/Other',
  'namespace',
  'runtimes',
  'mode',
  'kueue',
  'timeouts',
  'call',
  'workload',
  'queue',
  'admissionCheck',
  'gate',
  'workloadVersion',
  'gpuResource',
  'allowRankRestart',
  'publish',
  'via',
  'initContainer',
  'probeRuntime',
  'temporal',
  'taskQueue',
  'kubeconfig',
  '__proto__',
  'constructor',
  'toString',
  'DISPATCH_ATTEMPT',
  'LD_PRELOAD',
  '1BAD',
  '',
];

const replacement: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 3, arbitrary: fc.constantFrom(...ODD_NUMBERS) as fc.Arbitrary<Json> },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json> },
  { weight: 1, arbitrary: fc.constantFrom<Json>(null, true, false, [], {}, [''], { '': '' }) },
);

export interface Mutation {
  /** Where: each step picks an entry of the current object or array, modulo its size. */
  path: number[];
  op: 'replace' | 'delete' | 'add-key' | 'wrap' | 'grow';
  value: Json;
  key: string;
  /** How many entries 'grow' adds. */
  count: number;
}

export const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  path: fc.array(fc.nat(), { maxLength: 6 }),
  op: fc.constantFrom('replace', 'delete', 'add-key', 'wrap', 'grow'),
  value: replacement,
  key: fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 12 })),
  count: fc.constantFrom(1, 2, 4, 60, 121, 125),
});

function entries(node: Json): [string | number, Json][] {
  if (Array.isArray(node)) return node.map((v, i) => [i, v]);
  if (node !== null && typeof node === 'object') return Object.entries(node);
  return [];
}

/** Applies one mutation to a deep copy of `value`. */
export function mutate(value: Json, mutation: Mutation): Json {
  const root: Json = viaJson(value);
  // Walk down as far as the path goes; `parent[key]` is the node the mutation applies to.
  let parent: Json = null;
  let key: string | number | undefined;
  let node = root;
  for (const step of mutation.path) {
    const children = entries(node);
    if (children.length === 0) break;
    const [childKey, child] = children[step % children.length]!;
    parent = node;
    key = childKey;
    node = child;
  }
  const put = (next: Json): Json => {
    if (parent === null || key === undefined) return next;
    if (Array.isArray(parent)) parent[key as number] = next;
    else setOwn(parent as Record<string, Json>, String(key), next);
    return root;
  };
  switch (mutation.op) {
    case 'replace':
      return put(mutation.value);
    case 'wrap':
      return put([node]);
    case 'delete':
      if (parent === null || key === undefined) return null;
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete (parent as Record<string, Json>)[String(key)];
      return root;
    case 'add-key':
      if (node !== null && typeof node === 'object' && !Array.isArray(node)) {
        setOwn(node, mutation.key, mutation.value);
        return root;
      }
      return put({ [mutation.key]: mutation.value });
    case 'grow':
      if (Array.isArray(node)) {
        for (let i = 0; i < mutation.count; i++)
          node.push(node[i % Math.max(1, node.length)] ?? mutation.value);
      } else if (node !== null && typeof node === 'object') {
        for (let i = 0; i < mutation.count; i++)
          setOwn(node, `${mutation.key.replace(/\W/g, '') || 'K'}_${i}`, mutation.value);
      }
      return root;
  }
}

/** Valid requests (docs/contract.md §2) on the sample runtime dispatch-kind, within the adapter's limits. */
export const validRequestArb = requestArb({ kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' }).map(
  (r) => viaJson(r),
);

/** A valid value with one to three mutations. */
export const mutated = (valid: fc.Arbitrary<Json>) =>
  fc
    .tuple(valid, fc.array(mutationArb, { minLength: 1, maxLength: 3 }))
    .map(([value, mutations]) => mutations.reduce(mutate, value));

type Spec = { [key: string]: Json };

/**
 * Edits that keep a request valid but push its values to where the API server, not validation,
 * has the last word: the largest counts, the longest time limit, hostile strings in the image,
 * env, command and workDir. Such requests get past step 4 and are written.
 */
const valueEdits: fc.Arbitrary<(request: { [key: string]: Json }) => void>[] = [
  fc
    .constantFrom(1, 2 ** 31 - 1, 2 ** 31, 2 ** 53 - 1, 1_000_000)
    .map((n) => (r) => ((r.spec as Spec).nodes = n)),
  fc.constantFrom(0, 1, 2 ** 31, 2 ** 53 - 1, 1e15).map((n) => (r) => ((r.spec as Spec).gpusPerNode = n)),
  fc
    .constantFrom('2562047h47m16.854775807s', '1ns', '0s', '999999h', '1.000000001s')
    .map((t) => (r) => ((r.spec as Spec).timeLimit = t)),
  fc
    .constantFrom(
      ...HOSTILE_STRINGS.filter((h) => h !== '' && !h.includes('\u0000')),
      'UPPER/Case:Tag',
      'x'.repeat(5_000),
    )
    .map((ref) => (r) => (((r.spec as Spec).extensions as Spec)['dispatch/Image'] = { ref })),
  fc
    .tuple(fc.constantFrom(...HOSTILE_STRINGS.filter((h) => !h.includes('\u0000'))), fc.nat())
    .map(([value, i]) => (r) => {
      const env = ((r.spec as Spec).env ?? {}) as Spec;
      const keys = Object.keys(env);
      if (keys.length > 0) env[keys[i % keys.length]!] = value;
    }),
  fc
    .tuple(fc.constantFrom(...HOSTILE_STRINGS.filter((h) => !h.includes('\u0000'))), fc.nat())
    .map(([value, i]) => (r) => {
      const command = (r.spec as Spec).command as Json[];
      command[i % command.length] = value;
    }),
  fc
    .constantFrom(...HOSTILE_STRINGS.filter((h) => !h.includes('\u0000')))
    .map((w) => (r) => ((r.spec as Spec).workDir = w)),
  fc.constantFrom(999_999, 1).map((n) => (r) => (r.submission = n)),
  fc.constantFrom(18_000_000, 0).map((n) => (r) => (r.generation = n)),
  fc.constantFrom(0, 2 ** 31, 2 ** 53 - 1).map((n) => (r) => (r.attempt = n)),
];

/** Valid requests pushed to their values' limits (valueEdits), without ProcsPerNode so that the sample runtime takes them. */
export const limitRequestArb: fc.Arbitrary<Json> = fc
  .tuple(validRequestArb, fc.array(fc.oneof(...valueEdits), { minLength: 1, maxLength: 3 }))
  .map(([request, edits]) => {
    const r = viaJson(request) as { [key: string]: Json };
    delete (r.spec as Spec).procsPerNode;
    for (const edit of edits) edit(r);
    return viaJson(r);
  });

/** Mutations of valid requests, valid ones, valid ones at their limits, and arbitrary JSON. */
export const anyRequestArb: fc.Arbitrary<Json> = fc.oneof(
  { weight: 5, arbitrary: mutated(validRequestArb) },
  { weight: 2, arbitrary: validRequestArb },
  { weight: 2, arbitrary: limitRequestArb },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map(viaJson) },
  {
    weight: 1,
    // Every field present, each an arbitrary JSON value: the schema's every branch at once.
    arbitrary: fc
      .record({
        job: fc.jsonValue({ maxDepth: 1 }),
        generation: fc.jsonValue({ maxDepth: 1 }),
        submission: fc.jsonValue({ maxDepth: 1 }),
        attempt: fc.jsonValue({ maxDepth: 1 }),
        spec: fc.jsonValue({ maxDepth: 3 }),
        native: fc.jsonValue({ maxDepth: 1 }),
      })
      .map(viaJson),
  },
);

const dnsLabel = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,14}[a-z0-9])?$/);
const runtimeKey = fc
  .tuple(fc.constantFrom('TrainingRuntime', 'ClusterTrainingRuntime'), dnsLabel)
  .map(([kind, name]) => `${kind}/${name}`);
/** Go durations as a site may write them: every unit, fractions, several components. */
const duration = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1, max: 100_000 }), fc.constantFrom('ns', 'us', 'µs', 'ms', 's', 'm', 'h'))
    .map(([n, unit]) => `${n}${unit}`),
  fc
    .tuple(fc.nat(99), fc.integer({ min: 1, max: 999 }), fc.constantFrom('ms', 's', 'm'))
    .map(([n, f, unit]) => `${n}.${f}${unit}`),
  fc.tuple(fc.nat(3), fc.nat(59), fc.integer({ min: 1, max: 59 })).map(([h, m, s]) => `${h}h${m}m${s}s`),
);

/** Valid configurations (docs/contract.md §5): what a site may write. */
export const validConfigArb: fc.Arbitrary<Json> = fc
  .record(
    {
      namespace: dnsLabel,
      runtimes: fc.array(runtimeKey, { maxLength: 3 }),
      mode: fc.constantFrom('plain', 'kueue'),
      kueue: fc.record({
        queue: fc.constantFrom('user-queue', 'q'),
        admissionCheck: fc.constantFrom('dispatch', 'check'),
        gate: fc.constantFrom('dispatch.phpboyscout.uk/start', 'example.com/gate', 'gate'),
        workloadVersion: fc.constantFrom('v1beta1', 'v1beta2'),
      }),
      timeouts: fc.record({ workload: duration, call: duration }, { requiredKeys: [] }),
      gpuResource: fc.constantFrom('nvidia.com/gpu', 'amd.com/gpu', 'gpu'),
      allowRankRestart: fc.boolean(),
      publish: fc.record(
        { via: fc.constantFrom('env', 'initContainer'), initContainer: dnsLabel },
        { requiredKeys: [] },
      ),
      probeRuntime: runtimeKey,
      temporal: fc.record({ taskQueue: fc.string({ minLength: 1, maxLength: 20 }) }),
      kubeconfig: fc.constantFrom('', '/etc/kubeconfig'),
    },
    { requiredKeys: ['namespace'] },
  )
  // Kueue mode needs its queue and check, which the record may have left out.
  .map((c) => (c.mode === 'kueue' && !c.kueue ? { ...c, kueue: { queue: 'q', admissionCheck: 'c' } } : c))
  .map(viaJson);

/** Mostly mutations of valid configurations, some valid, some arbitrary JSON. */
export const anyConfigArb: fc.Arbitrary<Json> = fc.oneof(
  { weight: 6, arbitrary: mutated(validConfigArb) },
  { weight: 2, arbitrary: validConfigArb },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map(viaJson) },
);
