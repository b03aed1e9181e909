// Validates objects against the real CRDs' openAPIV3Schema (the controllers' own Go modules,
// dev/harness/crd-sources.ts), as closely as the API server would on create:
// - unknown fields are errors, because a structural schema prunes them and read-back would then
//   see a change (nothing in these CRDs sets x-kubernetes-preserve-unknown-fields);
// - metadata gets ObjectMeta's rules for names, namespaces, label and annotation keys and values;
// - x-kubernetes-int-or-string is the CRD's anyOf; int32/int64 formats are range checks;
// - x-kubernetes-list-type map/set refuse duplicate keys/items;
// - x-kubernetes-validations (CEL) rules are evaluated from a table of the rules these CRDs hold;
//   transition rules (oldSelf) do not apply on create; an unknown rule is an error unless the
//   caller asks to skip it, so a newer CRD cannot pass silently.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import { parse } from 'yaml';
import { crdDir } from '../../dev/harness/crd-sources.js';

/** The CRD files, in the Go modules of the controllers' versions (dev/harness/crd-sources.ts). */
export const CRDS = {
  trainJob: path.join(crdDir('trainer'), 'trainer.kubeflow.org_trainjobs.yaml'),
  trainingRuntime: path.join(crdDir('trainer'), 'trainer.kubeflow.org_trainingruntimes.yaml'),
  clusterTrainingRuntime: path.join(crdDir('trainer'), 'trainer.kubeflow.org_clustertrainingruntimes.yaml'),
  workload: path.join(crdDir('kueue'), 'kueue.x-k8s.io_workloads.yaml'),
} as const;

type Json = Record<string, unknown>;
type Rule = (self: unknown) => boolean;

const has = (value: unknown, key: string): boolean =>
  typeof value === 'object' && value !== null && (value as Json)[key] !== undefined;
const get = (value: unknown, key: string): unknown => (has(value, key) ? (value as Json)[key] : undefined);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The CEL rules of the Trainer CRDs, by their exact text. */
const RULES: Record<string, Rule> = {
  "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')": (self) =>
    /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(String(get(get(self, 'metadata'), 'name') ?? '')),
  'size(self.metadata.name) <= 63': (self) => String(get(get(self, 'metadata'), 'name') ?? '').length <= 63,
  "self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')": (self) =>
    self === '' || /^[A-Za-z][A-Za-z0-9+.-]*:\/\/.+$/.test(String(self)),
  "self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']": (self) =>
    self === 'trainer.kubeflow.org/trainjob-controller' || self === 'kueue.x-k8s.io/multikueue',
  'has(self.lastUpdatedTime)': (self) => has(self, 'lastUpdatedTime'),
  '[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),has(self.flux)].filter(x, x).size() <= 1':
    (self) => ['torch', 'mpi', 'jax', 'xgboost', 'flux'].filter((k) => has(self, k)).length <= 1,
  'self >= 1': (self) => typeof self === 'number' && self >= 1,
  "!self.exists(c, c == 'node')": (self) => !list(self).includes('node'),
  "!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && self.replicatedJobs.exists(x, has(x.dependsOn)))":
    (self) =>
      !(
        get(get(self, 'startupPolicy'), 'startupPolicyOrder') === 'InOrder' &&
        list(get(self, 'replicatedJobs')).some((job) => has(job, 'dependsOn'))
      ),
  'self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)': (self) =>
    list(get(self, 'templates')).every((t) => String(get(get(t, 'metadata'), 'namespace') ?? '') === ''),
};

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME = `^(${DNS1123_LABEL}(\\.${DNS1123_LABEL})*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`;

/** The parts of ObjectMeta the API server checks on every object, which the CRD leaves out. */
const OBJECT_META: AnySchemaObject = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 253, pattern: `^${DNS1123_LABEL}(\\.${DNS1123_LABEL})*$` },
    namespace: { type: 'string', maxLength: 63, pattern: `^${DNS1123_LABEL}$` },
    labels: {
      type: 'object',
      propertyNames: { pattern: QUALIFIED_NAME },
      additionalProperties: {
        type: 'string',
        maxLength: 63,
        pattern: '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$',
      },
    },
    annotations: {
      type: 'object',
      propertyNames: { pattern: QUALIFIED_NAME },
      additionalProperties: { type: 'string' },
    },
  },
};

export interface CrdValidatorOptions {
  /** The CRD version; its only or storage version when omitted. */
  version?: string;
  /** What an unknown CEL rule does when data reaches it: an error (default) or nothing. */
  unknownRules?: 'fail' | 'skip';
}

/** The openAPIV3Schema of one version of a CRD file. */
export function loadCrdSchema(file: string, version?: string): AnySchemaObject {
  const crd = parse(readFileSync(file, 'utf8')) as {
    spec: { versions: { name: string; storage?: boolean; schema: { openAPIV3Schema: AnySchemaObject } }[] };
  };
  const versions = crd.spec.versions;
  const chosen = version
    ? versions.find((v) => v.name === version)
    : (versions.find((v) => v.storage) ?? versions[0]);
  if (!chosen)
    throw new Error(`${file}: no version ${version}; has ${versions.map((v) => v.name).join(', ')}`);
  return chosen.schema.openAPIV3Schema;
}

const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions'];
const SCHEMAS = ['items', 'additionalProperties', 'not'];
const SCHEMA_LISTS = ['anyOf', 'allOf', 'oneOf'];

/** Closes every object that lists its properties, as pruning does, and gives metadata its rules. */
function structural(schema: AnySchemaObject, root = true): AnySchemaObject {
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_MAPS.includes(key)) {
      out[key] = Object.fromEntries(
        Object.entries(value as Json).map(([k, v]) => [k, structural(v as AnySchemaObject, false)]),
      );
    } else if (SCHEMAS.includes(key) && typeof value === 'object' && value !== null) {
      out[key] = structural(value as AnySchemaObject, false);
    } else if (SCHEMA_LISTS.includes(key)) {
      out[key] = (value as AnySchemaObject[]).map((v) => structural(v, false));
    } else {
      out[key] = value;
    }
  }
  if (
    out.properties &&
    out.additionalProperties === undefined &&
    !out['x-kubernetes-preserve-unknown-fields']
  ) {
    out.additionalProperties = false;
  }
  if (root) (out.properties as Json).metadata = OBJECT_META;
  return out;
}

function newAjv(unknownRules: 'fail' | 'skip'): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  const addFormats = (ajvFormats as unknown as { default: (a: Ajv) => void }).default;
  addFormats(ajv);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addKeyword({
    keyword: 'x-kubernetes-validations',
    schemaType: 'array',
    errors: true,
    compile(rules: { rule: string; message?: string }[]) {
      const validate = (self: unknown): boolean => {
        const errors: Partial<ErrorObject>[] = [];
        for (const { rule, message } of rules) {
          if (rule.includes('oldSelf')) continue; // transition rule: only on update
          const check = RULES[rule];
          if (check === undefined) {
            if (unknownRules === 'fail')
              errors.push({ message: `unsupported CEL rule, add it to crd-schema.ts: ${rule}` });
          } else if (!check(self)) {
            errors.push({ message: `${message ?? 'CEL rule failed'} (${rule})` });
          }
        }
        validate.errors = errors;
        return errors.length === 0;
      };
      validate.errors = [] as Partial<ErrorObject>[];
      return validate;
    },
  });
  ajv.addKeyword({
    keyword: 'x-kubernetes-list-type',
    schemaType: 'string',
    errors: true,
    compile(listType: string, parent: AnySchemaObject) {
      const keys = (parent['x-kubernetes-list-map-keys'] as string[] | undefined) ?? [];
      const validate = (items: unknown): boolean => {
        validate.errors = [] as Partial<ErrorObject>[];
        if (!Array.isArray(items) || (listType !== 'map' && listType !== 'set')) return true;
        const seen = new Set<string>();
        for (const item of items) {
          const key = JSON.stringify(listType === 'map' ? keys.map((k) => get(item, k)) : item);
          if (seen.has(key)) validate.errors.push({ message: `duplicate ${listType} entry ${key}` });
          seen.add(key);
        }
        return validate.errors.length === 0;
      };
      validate.errors = [] as Partial<ErrorObject>[];
      return validate;
    },
  });
  return ajv;
}

const cache = new Map<string, ValidateFunction>();

/** A validator for one CRD version: the errors it finds, as "<json pointer>: <message>", none when valid. */
export function crdValidator(file: string, options: CrdValidatorOptions = {}): (object: unknown) => string[] {
  const unknownRules = options.unknownRules ?? 'fail';
  const cacheKey = `${file}@${options.version ?? ''}@${unknownRules}`;
  let validate = cache.get(cacheKey);
  if (!validate) {
    validate = newAjv(unknownRules).compile(structural(loadCrdSchema(file, options.version)));
    cache.set(cacheKey, validate);
  }
  const compiled = validate;
  return (object) => {
    if (compiled(object)) return [];
    return (compiled.errors ?? []).map((e) => {
      const extra = e.keyword === 'additionalProperties' ? ` (${String(e.params.additionalProperty)})` : '';
      return `${e.instancePath || '/'}: ${e.message ?? e.keyword}${extra}`;
    });
  };
}

export const validateTrainJob = (object: unknown) => crdValidator(CRDS.trainJob)(object);
export const validateTrainingRuntime = (object: unknown) => crdValidator(CRDS.trainingRuntime)(object);
