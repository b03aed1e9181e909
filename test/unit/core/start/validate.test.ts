import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validate, validateCapabilitiesRequest } from '../../../../src/core/start/validate.js';
import { DispatchError } from '../../../../src/model/errors.js';

type Json = Record<string, unknown>;

/** docs/contract.md §2's example request, a fresh copy each time. */
const example = (): Json => JSON.parse(readFileSync(new URL('../../../fixtures/requests/contract-example.json', import.meta.url), 'utf8')) as Json;

/** The example with `change` applied to a copy of it. */
function withRequest(change: (request: Json, spec: Json, extensions: Json) => void): Json {
  const request = example();
  const spec = request.spec as Json;
  change(request, spec, spec.extensions as Json);
  return request;
}

/** The DispatchError validate throws for an input (the test fails when it returns instead). */
function refusal(input: unknown, check: (input: unknown) => unknown = validate): DispatchError {
  try {
    check(input);
  } catch (error) {
    expect(error).toBeInstanceOf(DispatchError);
    return error as DispatchError;
  }
  throw new Error(`accepted: ${JSON.stringify(input)}`);
}

function expectInvalid(input: unknown, ...reasons: string[]): DispatchError {
  const error = refusal(input);
  expect(error.type).toBe('ErrInvalid');
  expect(error.step).toBe(4);
  expect(error.reasons).toEqual(reasons);
  return error;
}

const env = (count: number): Record<string, string> => Object.fromEntries(Array.from({ length: count }, (_, i) => [`V${i}`, 'x']));

describe('docs/start.md, request table, Spec: a valid request is accepted (it becomes the TrainJob)', () => {
  it('docs/contract.md §2 example is accepted, with its Image and RuntimeRef extracted', () => {
    const valid = validate(example());
    expect(valid.image).toBe('ghcr.io/example/train:1.4');
    expect(valid.runtime).toEqual({ kind: 'ClusterTrainingRuntime', name: 'torch-distributed' });
    expect(valid.request.spec.command).toEqual(['python', 'train.py', '--epochs', '10']);
    expect(valid.request.job).toBe('01JD0Q3J0Y6Q7J7Z4W2X5V8K9M');
  });

  it('the smallest request (only required fields) is accepted', () => {
    const valid = validate({
      job: '7ZZZZZZZZZZZZZZZZZZZZZZZZZ',
      generation: 0,
      submission: 1,
      attempt: 0,
      spec: {
        command: ['true'],
        nodes: 1,
        extensions: {
          'dispatch/Image': { ref: 'x' },
          'kubeflow/RuntimeRef': { kind: 'TrainingRuntime', name: 'r' },
        },
      },
    });
    expect(valid.runtime).toEqual({ kind: 'TrainingRuntime', name: 'r' });
  });

  it('optional fields may be null, as a Go client marshals them', () => {
    const request = withRequest((r, spec) => {
      r.native = null;
      for (const key of ['name', 'env', 'workDir', 'gpusPerNode', 'procsPerNode', 'timeLimit', 'checkpoint', 'recovery']) spec[key] = null;
    });
    expect(validate(request).request.native).toBeNull();
  });
});

describe('docs/start.md, request table (each refusal is ErrInvalid)', () => {
  it.each(['01jd0q3j0y6q7j7z4w2x5v8k9m', '81JD0Q3J0Y6Q7J7Z4W2X5V8K9M', '01JD0Q3J0Y6Q7J7Z4W2X5V8K9', '01JD0Q3J0Y6Q7J7Z4W2X5V8K9MM', '01JD0Q3J0Y6Q7J7Z4W2X5V8K9U', ''])(
    'Job: %j is not a valid JobID',
    (job) => {
      expectInvalid(withRequest((r) => (r.job = job)), 'job: not a valid JobID');
    },
  );

  it('Job: a number is not a valid JobID either', () => {
    expectInvalid(withRequest((r) => (r.job = 1)), 'job: must be a string, not a number');
  });

  it('Generation: negative is refused', () => {
    expectInvalid(withRequest((r) => (r.generation = -1)), 'generation: negative generation');
  });

  it('Generation: above 18,000,000 is refused; 0 and 18,000,000 are accepted', () => {
    expectInvalid(withRequest((r) => (r.generation = 18_000_001)), 'generation: generation above 18,000,000');
    expect(validate(withRequest((r) => (r.generation = 0))).request.generation).toBe(0);
    expect(validate(withRequest((r) => (r.generation = 18_000_000))).request.generation).toBe(18_000_000);
  });

  it.each([0, 1_000_000, -5])('Submission: %d is outside 1 to 999,999', (submission) => {
    expectInvalid(withRequest((r) => (r.submission = submission)), 'submission: submission outside 1 to 999,999');
  });

  it('Submission: 1 and 999,999 are accepted', () => {
    expect(validate(withRequest((r) => (r.submission = 1))).request.submission).toBe(1);
    expect(validate(withRequest((r) => (r.submission = 999_999))).request.submission).toBe(999_999);
  });

  it('Attempt: negative is refused; 0 is accepted', () => {
    expectInvalid(withRequest((r) => (r.attempt = -1)), 'attempt: negative attempt');
    expect(validate(withRequest((r) => (r.attempt = 0))).request.attempt).toBe(0);
  });

  it('docs/contract.md §2: non-integers are invalid (generation, submission, attempt)', () => {
    expectInvalid(
      withRequest((r) => {
        r.generation = 1.5;
        r.submission = '12';
        r.attempt = Number.NaN;
      }),
      'generation: generation must be an integer',
      'submission: submission must be an integer',
      'attempt: attempt must be an integer',
    );
  });

  it('Native: accepted and ignored, whatever it declares ("no" refusal)', () => {
    expect(validate(withRequest((r) => (r.native = { requeue: true, restart: true }))).request.native).toEqual({ requeue: true, restart: true });
    expect(validate(withRequest((r) => delete r.native)).request.native).toBeUndefined();
  });

  it('missing required fields are each named', () => {
    expectInvalid({}, 'job: is required', 'generation: is required', 'submission: is required', 'attempt: is required', 'spec: is required');
  });

  it.each([
    [null, 'null'],
    [[], 'an array'],
    ['x', 'a string'],
    [7, 'a number'],
  ])('a request that is not an object (%j) is ErrInvalid', (input, what) => {
    expectInvalid(input, `request: must be an object, not ${what}`);
  });
});

describe('docs/start.md, "The spec": JobSpec.Validate reports every problem at once', () => {
  it('no command, NUL in command and env, fewer than one node, negative counts and time limit, reserved and malformed env keys, bad checkpoint', () => {
    const error = expectInvalid(
      withRequest((_, spec) => {
        spec.command = [];
        spec.env = { 'A\u0000': 'x', B: 'y\u0000', '1X': 'z', 'DISPATCH_JOB_ID': 'mine' };
        spec.nodes = 0;
        spec.gpusPerNode = -1;
        spec.procsPerNode = -2;
        spec.timeLimit = '-1s';
        spec.checkpoint = 'relative/path';
      }),
      'spec.command: no command',
      'spec.env["A\\u0000"]: NUL in env',
      'spec.env.B: NUL in env',
      'spec.env.1X: malformed env key (must match ^[A-Za-z_][A-Za-z0-9_]*$)',
      "spec.env.DISPATCH_JOB_ID: reserved env key (keys beginning DISPATCH_ are dispatch's)",
      'spec.nodes: fewer than one node',
      'spec.gpusPerNode: negative GPU count',
      'spec.procsPerNode: negative process count',
      'spec.timeLimit: negative time limit',
      'spec.checkpoint: checkpoint is neither an absolute path nor an s3:// URL',
    );
    expect(error.message).toContain('spec.command: no command; ');
  });

  it('a NUL in a command item is named by its index', () => {
    expectInvalid(withRequest((_, spec) => (spec.command = ['ok', 'b\u0000d'])), 'spec.command[1]: NUL in command');
  });

  it('a NUL in workDir is refused (it becomes DISPATCH_K8S_WORKDIR)', () => {
    expectInvalid(withRequest((_, spec) => (spec.workDir = '/a\u0000')), 'spec.workDir: NUL in env');
  });

  it('a lone UTF-16 surrogate in a command item, env key or value, workDir or image ref is named by its path', () => {
    const surrogate = 'holds a lone UTF-16 surrogate, which Kubernetes cannot store';
    expectInvalid(
      withRequest((_, spec, ext) => {
        spec.command = ['python', 'ok \u{1F600}', 'x\uD800', '\uDC00y', '\uDC00\uD800'];
        spec.env = { A: '\uD83D', B: '\u{1F600}', ['K\uDFFF']: 'v' };
        spec.workDir = '/w\uDBFF';
        ext['dispatch/Image'] = { ref: 'img\uD800' };
      }),
      `spec.command[2]: ${surrogate}`,
      `spec.command[3]: ${surrogate}`,
      `spec.command[4]: ${surrogate}`,
      `spec.env.A: ${surrogate}`,
      `spec.env["K\\udfff"]: ${surrogate}`,
      `spec.workDir: ${surrogate}`,
      `spec.extensions.dispatch/Image.ref: ${surrogate}`,
    );
  });

  it('problems in the request, the spec and the extensions are reported together', () => {
    expectInvalid(
      withRequest((r, spec, ext) => {
        r.job = 'nope';
        spec.nodes = 0;
        delete ext['dispatch/Image'];
      }),
      'job: not a valid JobID',
      'spec.nodes: fewer than one node',
      'spec.extensions.dispatch/Image: is required',
    );
  });
});

describe('docs/start.md, JobSpec table', () => {
  it('Command: 124 items are accepted', () => {
    expect(validate(withRequest((_, spec) => (spec.command = Array(124).fill('a')))).request.spec.command).toHaveLength(124);
  });

  it('Command: more than 124 items is ErrInvalid (Trainer allows 128, the prologue takes 4)', () => {
    expectInvalid(
      withRequest((_, spec) => (spec.command = Array(125).fill('a'))),
      'spec.command: 125 items; at most 124 are allowed (Trainer allows 128, the prologue takes 4)',
    );
  });

  it('Command: the limit is reported with the other problems, even when the parse fails elsewhere', () => {
    expectInvalid(
      withRequest((r, spec) => {
        r.attempt = -1;
        spec.command = [...Array(200).fill('a'), 7];
      }),
      'attempt: negative attempt',
      'spec.command[200]: must be a string, not a number',
      'spec.command: 201 items; at most 124 are allowed (Trainer allows 128, the prologue takes 4)',
    );
  });

  it('Env: 122 entries without WorkDir are accepted, 123 are ErrInvalid (Trainer allows 128, dispatch adds six)', () => {
    expect(Object.keys(validate(withRequest((_, spec) => ((spec.env = env(122)), delete spec.workDir))).request.spec.env ?? {})).toHaveLength(122);
    expectInvalid(
      withRequest((_, spec) => {
        spec.env = env(123);
        delete spec.workDir;
      }),
      'spec.env: 123 entries; at most 122 are allowed (Trainer allows 128, dispatch adds 6 variables)',
    );
  });

  it('Env: with WorkDir, 121 entries are accepted and 122 are ErrInvalid (dispatch adds seven)', () => {
    expect(validate(withRequest((_, spec) => (spec.env = env(121)))).request.spec.workDir).toBe('/workspace');
    expectInvalid(
      withRequest((_, spec) => (spec.env = env(122))),
      'spec.env: 122 entries; at most 121 are allowed with workDir set (Trainer allows 128, dispatch adds 7 variables)',
    );
  });

  it('Env: an empty workDir is unset, so 122 entries are accepted', () => {
    expect(validate(withRequest((_, spec) => ((spec.env = env(122)), (spec.workDir = '')))).request.spec.workDir).toBe('');
  });

  it('Env: keys beginning DISPATCH_ are reserved; dispatch_ in lower case is not', () => {
    expectInvalid(withRequest((_, spec) => (spec.env = { DISPATCH_X: '1' })), "spec.env.DISPATCH_X: reserved env key (keys beginning DISPATCH_ are dispatch's)");
    expect(validate(withRequest((_, spec) => (spec.env = { dispatch_x: '1', _A: '' }))).request.spec.env).toEqual({ dispatch_x: '1', _A: '' });
  });

  it('Env: a "__proto__" key is refused, not silently dropped from the parsed env', () => {
    expectInvalid(
      withRequest((_, spec) => (spec.env = JSON.parse('{"__proto__": "x", "A": "b"}'))),
      'spec.env.__proto__: cannot be carried (JavaScript objects reserve this key), so it would be dropped',
    );
  });

  it('Env: values must be strings', () => {
    expectInvalid(withRequest((_, spec) => (spec.env = { A: 1 })), 'spec.env.A: must be a string, not a number');
  });

  it('WorkDir: any string is accepted (a missing directory exits 125 at run time)', () => {
    expect(validate(withRequest((_, spec) => (spec.workDir = 'relative/dir'))).request.spec.workDir).toBe('relative/dir');
  });

  it('Nodes: fewer than one node is ErrInvalid; a non-integer too', () => {
    expectInvalid(withRequest((_, spec) => (spec.nodes = 0)), 'spec.nodes: fewer than one node');
    expectInvalid(withRequest((_, spec) => (spec.nodes = 1.5)), 'spec.nodes: nodes must be an integer');
    expectInvalid(withRequest((_, spec) => delete spec.nodes), 'spec.nodes: is required');
  });

  it('GPUsPerNode: 0 (unset) and above are accepted; negative and non-integer are ErrInvalid', () => {
    expect(validate(withRequest((_, spec) => (spec.gpusPerNode = 0))).request.spec.gpusPerNode).toBe(0);
    expectInvalid(withRequest((_, spec) => (spec.gpusPerNode = -1)), 'spec.gpusPerNode: negative GPU count');
    expectInvalid(withRequest((_, spec) => (spec.gpusPerNode = 0.5)), 'spec.gpusPerNode: GPU count must be an integer');
  });

  it('ProcsPerNode: accepted by validation (the torch check needs the runtime: see runtime-rules)', () => {
    expect(validate(withRequest((_, spec) => (spec.procsPerNode = 4))).request.spec.procsPerNode).toBe(4);
    expectInvalid(withRequest((_, spec) => (spec.procsPerNode = 2.5)), 'spec.procsPerNode: process count must be an integer');
  });

  it.each(['90m', '1.5s', '2h0m0.25s', '0s', '0'])('TimeLimit: Go duration %j is accepted', (timeLimit) => {
    expect(validate(withRequest((_, spec) => (spec.timeLimit = timeLimit))).request.spec.timeLimit).toBe(timeLimit);
  });

  it.each(['90', '1 h', 'forever'])('TimeLimit: %j is not a Go duration', (timeLimit) => {
    expectInvalid(withRequest((_, spec) => (spec.timeLimit = timeLimit)), 'spec.timeLimit: not a Go duration (e.g. "90m", "2h0m0.25s")');
  });

  it('TimeLimit: a negative time limit is ErrInvalid', () => {
    expectInvalid(withRequest((_, spec) => (spec.timeLimit = '-90m')), 'spec.timeLimit: negative time limit');
  });

  it('Name: accepted, becomes nothing', () => {
    expect(validate(withRequest((_, spec) => (spec.name = 'anything at all'))).request.spec.name).toBe('anything at all');
  });

  it.each(['/ckpt/a', 's3://bucket', 's3://bucket/key'])('Checkpoint: %j (absolute path or s3:// URL) is accepted', (checkpoint) => {
    expect(validate(withRequest((_, spec) => (spec.checkpoint = checkpoint))).request.spec.checkpoint).toBe(checkpoint);
  });

  it.each(['ckpt', 's3://', 's3:///key', 'gs://bucket/key'])('Checkpoint: %j is neither an absolute path nor an s3:// URL', (checkpoint) => {
    expectInvalid(withRequest((_, spec) => (spec.checkpoint = checkpoint)), 'spec.checkpoint: checkpoint is neither an absolute path nor an s3:// URL');
  });

  it.each(['name', 'workDir', 'timeLimit', 'checkpoint'])('%s: "" is unset (a Go caller without omitempty sends it), not refused', (field) => {
    expect(validate(withRequest((_, spec) => (spec[field] = ''))).request.spec[field as 'name']).toBe('');
  });

  it('Recovery: policy "" is accepted like any policy', () => {
    expect(validate(withRequest((_, spec) => (spec.recovery = { policy: '' }))).request.spec.recovery).toEqual({ policy: '' });
  });

  it('Recovery: accepted, becomes nothing; an unknown key in it is named', () => {
    expect(validate(withRequest((_, spec) => (spec.recovery = {}))).request.spec.recovery).toEqual({});
    expectInvalid(withRequest((_, spec) => (spec.recovery = { policy: 'restart', tries: 3 })), 'spec.recovery.tries: unknown field');
  });
});

describe('docs/start.md, Extensions table', () => {
  it('dispatch/Image: missing is ErrInvalid', () => {
    expectInvalid(withRequest((_, __, ext) => delete ext['dispatch/Image']), 'spec.extensions.dispatch/Image: is required');
  });

  it('dispatch/Image: with an empty Ref is ErrInvalid', () => {
    expectInvalid(withRequest((_, __, ext) => (ext['dispatch/Image'] = { ref: '' })), 'spec.extensions.dispatch/Image.ref: empty Ref');
  });

  it('dispatch/Image: without a ref, or not an object, is ErrInvalid', () => {
    expectInvalid(withRequest((_, __, ext) => (ext['dispatch/Image'] = {})), 'spec.extensions.dispatch/Image.ref: is required');
    expectInvalid(withRequest((_, __, ext) => (ext['dispatch/Image'] = 'ghcr.io/x')), 'spec.extensions.dispatch/Image: must be an object, not a string');
    expectInvalid(withRequest((_, __, ext) => (ext['dispatch/Image'] = null)), 'spec.extensions.dispatch/Image: must be an object, not null');
  });

  it('dispatch/Image: a ref of 500 characters (code points) is accepted, 501 is ErrInvalid (the TrainJob CRD allows 500)', () => {
    const ref = (length: number) => `r/${'a'.repeat(length - 2)}`;
    expect(validate(withRequest((_, __, ext) => (ext['dispatch/Image'] = { ref: ref(500) }))).image).toHaveLength(500);
    expect(validate(withRequest((_, __, ext) => (ext['dispatch/Image'] = { ref: '\u{1F600}'.repeat(500) }))).image).toHaveLength(1000);
    expectInvalid(
      withRequest((_, __, ext) => (ext['dispatch/Image'] = { ref: ref(501) })),
      "spec.extensions.dispatch/Image.ref: longer than 500 characters (the TrainJob CRD's maxLength of spec.trainer.image)",
    );
  });

  it('dispatch/Image: becomes spec.trainer.image (extracted as ValidRequest.image)', () => {
    expect(validate(withRequest((_, __, ext) => (ext['dispatch/Image'] = { ref: 'r/i@sha256:00' }))).image).toBe('r/i@sha256:00');
  });

  it('kubeflow/RuntimeRef: missing is ErrInvalid', () => {
    expectInvalid(withRequest((_, __, ext) => delete ext['kubeflow/RuntimeRef']), 'spec.extensions.kubeflow/RuntimeRef: is required');
  });

  it('kubeflow/RuntimeRef: malformed is ErrInvalid, every problem named', () => {
    expectInvalid(
      withRequest((_, __, ext) => (ext['kubeflow/RuntimeRef'] = { kind: 'Runtime', name: '', extra: 1 })),
      'spec.extensions.kubeflow/RuntimeRef.kind: must be one of "TrainingRuntime", "ClusterTrainingRuntime"',
      'spec.extensions.kubeflow/RuntimeRef.name: empty name',
      'spec.extensions.kubeflow/RuntimeRef.extra: unknown field',
    );
    expectInvalid(
      withRequest((_, __, ext) => (ext['kubeflow/RuntimeRef'] = { kind: 'TrainingRuntime', name: 'Not_A/Name' })),
      'spec.extensions.kubeflow/RuntimeRef.name: not a valid runtime name (DNS-1123 subdomain)',
    );
    expectInvalid(
      withRequest((_, __, ext) => (ext['kubeflow/RuntimeRef'] = { kind: 'TrainingRuntime', name: 'a'.repeat(254) })),
      'spec.extensions.kubeflow/RuntimeRef.name: longer than 253 characters',
    );
    expectInvalid(withRequest((_, __, ext) => (ext['kubeflow/RuntimeRef'] = { name: 'x' })), 'spec.extensions.kubeflow/RuntimeRef.kind: is required');
    expectInvalid(withRequest((_, __, ext) => (ext['kubeflow/RuntimeRef'] = ['TrainingRuntime', 'x'])), 'spec.extensions.kubeflow/RuntimeRef: must be an object, not an array');
  });

  it('kubeflow/RuntimeRef: names the runtime that is copied (either kind)', () => {
    const valid = validate(withRequest((_, __, ext) => (ext['kubeflow/RuntimeRef'] = { kind: 'TrainingRuntime', name: 'torch.v2' })));
    expect(valid.runtime).toEqual({ kind: 'TrainingRuntime', name: 'torch.v2' });
  });

  it('both required extensions missing, and no extensions at all, are each named', () => {
    const missing = ['spec.extensions.kubeflow/RuntimeRef: is required', 'spec.extensions.dispatch/Image: is required'];
    expectInvalid(withRequest((_, spec) => delete spec.extensions), ...missing);
    expectInvalid(withRequest((_, spec) => (spec.extensions = null)), ...missing);
    expectInvalid(withRequest((_, spec) => (spec.extensions = {})), ...missing);
  });

  it('an extension map that is not an object is named once, not as missing extensions', () => {
    expectInvalid(withRequest((_, spec) => (spec.extensions = ['dispatch/Image'])), 'spec.extensions: must be an object, not an array');
  });

  it('dispatch/SharedCheckpoint: not required, accepted when present', () => {
    expect(() => validate(withRequest((_, __, ext) => delete ext['dispatch/SharedCheckpoint']))).not.toThrow();
    expect(() => validate(withRequest((_, __, ext) => (ext['dispatch/SharedCheckpoint'] = {})))).not.toThrow();
  });

  it('dispatch/SharedCheckpoint: must be an object, validated with its schema', () => {
    expectInvalid(withRequest((_, __, ext) => (ext['dispatch/SharedCheckpoint'] = true)), 'spec.extensions.dispatch/SharedCheckpoint: must be an object, not a boolean');
    expectInvalid(withRequest((_, __, ext) => (ext['dispatch/SharedCheckpoint'] = { path: '/x' })), 'spec.extensions.dispatch/SharedCheckpoint.path: unknown field');
  });

  it('any other: refused with ErrUnsupported, "extension <namespace>/<name> is not supported on Kubeflow", never ignored', () => {
    const error = refusal(
      withRequest((_, __, ext) => {
        ext['slurm/Partition'] = { name: 'gpu' };
        ext['dispatch/image'] = {};
        Object.assign(ext, { constructor: 'x' });
      }),
    );
    expect(error.type).toBe('ErrUnsupported');
    expect(error.step).toBe(4);
    expect(error.reasons).toEqual([
      'extension slurm/Partition is not supported on Kubeflow',
      'extension dispatch/image is not supported on Kubeflow',
      'extension constructor is not supported on Kubeflow',
    ]);
  });

  it('any other: with an invalid problem too, the type is ErrInvalid and the unsupported reasons follow in the same list', () => {
    expectInvalid(
      withRequest((_, spec, ext) => {
        spec.nodes = 0;
        ext['kubeflow/Queue'] = 'q';
      }),
      'spec.nodes: fewer than one node',
      'extension kubeflow/Queue is not supported on Kubeflow',
    );
  });

  it('an inherited key is not an extension: "constructor" does not satisfy a required one', () => {
    const request = withRequest((_, spec) => (spec.extensions = JSON.parse('{"kubeflow/RuntimeRef": {"kind": "TrainingRuntime", "name": "r"}}')));
    expectInvalid(request, 'spec.extensions.dispatch/Image: is required');
  });
});

describe('docs/contract.md §2: an unknown key anywhere is ErrInvalid naming its path', () => {
  it('at the top, in spec, in native, in an extension', () => {
    expectInvalid(
      withRequest((r, spec, ext) => {
        r.priority = 1;
        spec.queue = 'q';
        r.native = { requeue: false, resume: true };
        ext['dispatch/Image'] = { ref: 'x', pull: 'Always' };
      }),
      'spec.queue: unknown field',
      'native.resume: unknown field',
      'priority: unknown field',
      'spec.extensions.dispatch/Image.pull: unknown field',
    );
  });
});

describe('validateCapabilitiesRequest (TrainJobCapabilities)', () => {
  const query = (spec: Json): Json => ({ spec });
  const runtimeRef = { 'kubeflow/RuntimeRef': { kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' } };

  it('only kubeflow/RuntimeRef is required; ProcsPerNode defaults to 0', () => {
    expect(validateCapabilitiesRequest(query({ extensions: runtimeRef }))).toEqual({
      runtime: { kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' },
      procsPerNode: 0,
    });
  });

  it('the rest of the spec is Start\'s: other fields and extensions are not checked', () => {
    const answer = validateCapabilitiesRequest(
      query({ command: [], nodes: 0, procsPerNode: 8, extensions: { ...runtimeRef, 'slurm/Partition': 1, 'dispatch/Image': { ref: '' } } }),
    );
    expect(answer.procsPerNode).toBe(8);
  });

  it('a full StartRequest spec is accepted as the capabilities spec', () => {
    expect(validateCapabilitiesRequest({ spec: example().spec }).runtime.name).toBe('torch-distributed');
  });

  it('missing or malformed RuntimeRef, a bad ProcsPerNode and an unknown top-level key are ErrInvalid, all named', () => {
    const error = refusal({ spec: { procsPerNode: -1 }, job: 'x' }, validateCapabilitiesRequest);
    expect(error.type).toBe('ErrInvalid');
    expect(error.step).toBe(4);
    expect(error.reasons).toEqual(['spec.procsPerNode: negative process count', 'job: unknown field', 'spec.extensions.kubeflow/RuntimeRef: is required']);
    expect(refusal(query({ extensions: { 'kubeflow/RuntimeRef': { kind: 'X', name: 'y' } } }), validateCapabilitiesRequest).reasons).toEqual([
      'spec.extensions.kubeflow/RuntimeRef.kind: must be one of "TrainingRuntime", "ClusterTrainingRuntime"',
    ]);
  });

  it('a request that is not an object, or has no spec, is ErrInvalid', () => {
    expect(refusal(null, validateCapabilitiesRequest).reasons).toEqual(['request: must be an object, not null']);
    expect(refusal({}, validateCapabilitiesRequest).reasons).toEqual(['spec: is required']);
  });
});
