// docker-compose.yml, checked without a Docker engine: valid against the Compose Specification's
// JSON Schema, every image pinned, every path it mounts or builds from present, every variable
// defaulted or documented, and the pieces agreeing with each other and with the product (the
// search attributes Start sets, the configuration the worker reads, its metrics ports).
//
// compose-spec.json is the Compose Specification's schema (compose-spec/compose-spec,
// schema/compose-spec.json, Apache-2.0) as the npm package dclint@3.1.0 ships it
// (schemas/compose.schema.json), vendored verbatim: sha256 46b7d35f19dd93a05f8fea530291bf84d881c1791ec167ecf0e6fb94e639d496.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readDocument, parseConfig } from '../../../src/config/load-config.js';
import { podTerminationGraceSeconds } from '../../../src/core/drain.js';
import { TEMPORAL_DEPLOY_DIR, TEMPORAL_SERVER_ARGS } from '../../../dev/harness/postgres.js';
import { TEMPORAL_DYNAMIC_CONFIG } from '../../../dev/harness/temporal.js';
import { SearchAttributes } from '../../../src/contract/names.js';
import { DispatchJobId, DispatchPhase, DispatchStep, DispatchTrainJob } from '../../../src/contract/search-attributes.js';
import {
  bindMounts,
  environmentOf,
  interpolate,
  interpolateAll,
  readCompose,
  readEnvExample,
  stringsOf,
  variablesIn,
  type Service,
} from './compose.js';
import { imageName, REPO } from './manifests.js';

const SCHEMA_FILE = join(import.meta.dirname, 'compose-spec.json');
const raw = readCompose();
/** The file as Compose reads it with no .env: every variable at its default. */
const resolved = interpolateAll(raw);
const env = readEnvExample();
const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const services = Object.entries(resolved.services);
const worker = resolved.services.worker!;

function validator() {
  const text = readFileSync(SCHEMA_FILE, 'utf8');
  expect(createHash('sha256').update(text).digest('hex')).toBe(
    '46b7d35f19dd93a05f8fea530291bf84d881c1791ec167ecf0e6fb94e639d496',
  );
  // The schema names its draft by an https URL Ajv does not know; it is draft-07, Ajv's default.
  const { $schema: _draft, ...schema } = JSON.parse(text) as Record<string, unknown>;
  return new Ajv({ allErrors: true, strict: false }).compile(schema);
}

/** The script a one-shot service runs (`entrypoint: [/bin/sh, <script>]`) from its bind mount of the repository. */
function mountedScript(service: Service): { path: string; text: string } {
  const [shell, script, ...rest] = service.entrypoint as string[];
  expect([shell, rest]).toEqual(['/bin/sh', []]);
  const mount = bindMounts(service).find((m) => script!.startsWith(`${m.target}/`));
  expect(mount, `${script} is in no mount`).toBeDefined();
  const path = join(mount!.source, script!.slice(mount!.target.length + 1)).replace(/^\.\//, '');
  return { path, text: readFileSync(resolve(REPO, path), 'utf8') };
}

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification schema, as written and with the defaults', () => {
    const validate = validator();
    for (const document of [raw, resolved]) {
      const valid = validate(document);
      expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
      expect(valid).toBe(true);
    }
  });

  it('a document the schema must refuse is refused (the check is not vacuous)', () => {
    const validate = validator();
    expect(
      validate({ services: { worker: { image: 'x:1', restart: 'sometimes', healthcheck: { tests: [] } } } }),
    ).toBe(false);
    expect(
      validate({
        services: { worker: { image: 'x:1', depends_on: { temporal: { condition: 'service_ready' } } } },
      }),
    ).toBe(false);
  });

  it('pins every image to a version: a tag, never latest', () => {
    for (const [name, service] of services) {
      const image = service.image ?? '';
      const tag = image.split('@')[0]!.slice(imageName(image).length + 1);
      expect(tag, `${name}: ${image}`).toMatch(/^v?\d+(\.\d+)+[-.\w]*$/);
    }
  });

  it('builds the worker from the Dockerfile as the image of this version', () => {
    expect(worker.build).toEqual({ context: '.', dockerfile: 'Dockerfile' });
    expect(worker.image).toBe(`dispatch-kubeflow:${version}`);
  });

  it('refers only to paths that exist in the repository, or to host paths given by a documented variable', () => {
    const paths: { what: string; path: string; raw: string }[] = [];
    for (const [name, service] of services) {
      const build = service.build;
      if (build && typeof build === 'object') {
        const rawBuild = raw.services[name]!.build as { context: string; dockerfile: string };
        paths.push({ what: `${name} build context`, path: build.context ?? '.', raw: rawBuild.context });
        paths.push({
          what: `${name} Dockerfile`,
          path: join(build.context ?? '.', build.dockerfile ?? 'Dockerfile'),
          raw: rawBuild.dockerfile,
        });
      }
      const rawMounts = bindMounts(raw.services[name]!);
      bindMounts(service).forEach((mount, i) =>
        paths.push({ what: `${name} mount ${mount.target}`, path: mount.source, raw: rawMounts[i]!.source }),
      );
      for (const file of [service.env_file ?? []].flat())
        paths.push({ what: `${name} env_file`, path: file, raw: file });
    }
    for (const [name, config] of Object.entries({ ...resolved.configs, ...resolved.secrets })) {
      if (config.file) paths.push({ what: `config ${name}`, path: config.file, raw: config.file });
    }
    expect(paths.length).toBeGreaterThan(2);
    for (const { what, path, raw: written } of paths) {
      if (path.startsWith('~') || isAbsolute(path)) {
        // A host path outside the repository: the user's to give.
        const [variable] = variablesIn(written);
        expect(written, `${what}: a host path must come from a variable`).toMatch(
          /^\$\{[A-Z_]+(:-[^}]*)?\}$/,
        );
        expect(env.has(variable!.name), `${what}: ${variable!.name} is not in .env.example`).toBe(true);
      } else {
        expect(existsSync(resolve(REPO, path)), `${what}: ${path} does not exist`).toBe(true);
      }
    }
  });

  it('gives every variable a default or documents it in .env.example, and documents each with its default', () => {
    const refs = [...stringsOf(raw)].flatMap(({ path, text }) =>
      variablesIn(text).map((ref) => ({ path, ...ref })),
    );
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      const defaulted = ref.operator === ':-' || ref.operator === '-';
      expect(
        defaulted || env.has(ref.name),
        `${ref.path}: \${${ref.name}} has no default and is not in .env.example`,
      ).toBe(true);
      if (defaulted && env.has(ref.name))
        expect(env.get(ref.name), `${ref.name}: .env.example says another default`).toBe(ref.operand);
    }
    // Nothing stale: every documented variable is read.
    const used = new Set(refs.map((r) => r.name));
    for (const name of env.keys())
      expect(used.has(name), `.env.example documents ${name}, which docker-compose.yml never reads`).toBe(
        true,
      );
  });

  it('starts each service only after what it needs: healthy services have a health check, one-shots do not restart', () => {
    for (const [name, service] of services) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        const target = resolved.services[dependency];
        expect(target, `${name} depends on ${dependency}, which is not a service`).toBeDefined();
        if (condition === 'service_healthy')
          expect(target!.healthcheck?.test, `${dependency} has no health check`).toBeDefined();
        if (condition === 'service_completed_successfully')
          expect(target!.restart, `${dependency} is a one-shot`).toBe('no');
      }
    }
    for (const name of ['postgresql', 'temporal', 'worker'])
      expect(resolved.services[name]!.healthcheck?.test, name).toBeDefined();
  });

  it('registers, in the namespace the worker polls, exactly the search attributes Start sets, each a Keyword', () => {
    const setup = resolved.services['temporal-setup']!;
    const script = mountedScript(setup);
    expect(script.path).toBe('deploy/temporal/setup-namespace.sh');
    const loops = [...script.text.matchAll(/^\s*for name in ([^;]+); do$/gm)].map((m) => m[1]!.split(/\s+/).sort());
    const expected = Object.values(SearchAttributes).sort();
    expect(loops).toEqual([expected, expected]);
    expect(script.text).toContain('cli operator search-attribute create --namespace "$ns" --name "$name" --type Keyword');
    expect(script.text).toContain('"\\"$name\\": *\\"INDEXED_VALUE_TYPE_KEYWORD\\""');
    for (const key of [DispatchJobId, DispatchTrainJob, DispatchStep, DispatchPhase]) expect(key.type).toBe('KEYWORD');
    // SQL visibility (PostgreSQL) allows 10 Keyword attributes per namespace.
    expect(expected.length).toBeLessThanOrEqual(10);
    expect(environmentOf(setup, 'TEMPORAL_NAMESPACE')).toBe(environmentOf(worker, 'TEMPORAL_NAMESPACE'));
    expect(environmentOf(setup, 'TEMPORAL_ADDRESS')).toBe(environmentOf(worker, 'TEMPORAL_ADDRESS'));
    expect(worker.depends_on).toEqual({ 'temporal-setup': { condition: 'service_completed_successfully' } });
  });

  it('runs Temporal on PostgreSQL as the PostgreSQL smoke suite does: its version, configuration and scripts', () => {
    const temporal = resolved.services.temporal!;
    const schemaService = resolved.services['temporal-schema']!;
    // The server is the version the tests build (scripts/servers/temporal-server/go.mod), and the
    // admin tools (temporal-sql-tool, the schema folders, the CLI) are of the same release.
    const goMod = readFileSync(join(REPO, 'scripts/servers/temporal-server/go.mod'), 'utf8');
    const built = /^\s*go\.temporal\.io\/server (v\S+)/m.exec(goMod)![1]!.slice(1);
    expect(temporal.image).toBe(`temporalio/server:${built}`);
    for (const name of ['temporal-schema', 'temporal-setup'])
      expect(resolved.services[name]!.image).toMatch(new RegExp(`^temporalio/admin-tools:${built.replaceAll('.', '\\.')}-`));
    // The same command, from the same folder of the repository, as dev/harness/postgres.ts.
    expect(temporal.entrypoint).toEqual(['temporal-server', ...TEMPORAL_SERVER_ARGS]);
    const mount = bindMounts(temporal).find((m) => m.target === temporal.working_dir);
    expect(mount?.readOnly).toBe(true);
    expect(resolve(REPO, mount!.source)).toBe(TEMPORAL_DEPLOY_DIR);
    expect(mountedScript(schemaService).path).toBe('deploy/temporal/setup-schema.sh');
    expect(environmentOf(schemaService, 'TEMPORAL_SCHEMA_DIR')).toBe('/etc/temporal/schema');
    // One database server and password for the schema step and the server.
    const postgresql = resolved.services.postgresql!;
    for (const service of [temporal, schemaService]) {
      expect(environmentOf(service, 'POSTGRES_HOST')).toBe('postgresql');
      expect(environmentOf(service, 'POSTGRES_USER')).toBe(environmentOf(postgresql, 'POSTGRES_USER'));
      expect(environmentOf(service, 'POSTGRES_PASSWORD')).toBe(environmentOf(postgresql, 'POSTGRES_PASSWORD'));
    }
    expect(temporal.depends_on).toEqual({ 'temporal-schema': { condition: 'service_completed_successfully' } });
    // The configuration: both stores on PostgreSQL (postgres12), the dynamic config it names.
    const config = readFileSync(join(TEMPORAL_DEPLOY_DIR, 'config/dispatch.yaml'), 'utf8');
    expect(config.split('\n')[0]).toBe('# enable-template');
    expect([...config.matchAll(/pluginName: (\S+)/g)].map((m) => m[1])).toEqual(['postgres12', 'postgres12']);
    const dynamicFile = /filepath: (\S+)/.exec(config)![1]!;
    const dynamic = parse(readFileSync(join(TEMPORAL_DEPLOY_DIR, dynamicFile), 'utf8')) as Record<string, { value: unknown }[]>;
    expect(dynamic['system.forceSearchAttributesCacheRefreshOnRead']?.[0]?.value).toBe(true);
    // The server settings the tests and the bench run with (docs/performance.md).
    for (const [key, value] of Object.entries(TEMPORAL_DYNAMIC_CONFIG)) expect(dynamic[key]?.[0]?.value, key).toBe(value);
  });

  it("mounts the worker's configuration where --config reads it, and it passes the config schema", async () => {
    const mounts = bindMounts(worker);
    const configMount = mounts.find((m) => (worker.command as string[]).includes(`--config=${m.target}`))!;
    expect(configMount).toMatchObject({ readOnly: true });
    expect(statSync(resolve(REPO, configMount.source)).isFile()).toBe(true);
    const config = parseConfig(await readDocument(resolve(REPO, configMount.source)), configMount.source);
    // Empty, so that the worker reads KUBECONFIG: the mounted kubeconfig.
    expect(config.kubeconfig).toBe('');
    const kubeconfig = mounts.find((m) => m.target === environmentOf(worker, 'KUBECONFIG'));
    expect(kubeconfig).toMatchObject({ readOnly: true });
    // `docker compose stop` waits out the worker's drain with this configuration's timeouts.
    expect(worker.stop_grace_period).toBe(`${podTerminationGraceSeconds(config.timeouts)}s`);
  });

  it("runs the worker locked down, with both metrics endpoints published and a health check on its /readyz", () => {
    expect(worker.command).toEqual([
      'worker',
      '--config=/etc/dispatch-kubeflow/config.yaml',
      '--metrics=0.0.0.0:9464',
      '--dispatch-metrics=0.0.0.0:9465',
      '--health=0.0.0.0:8081',
    ]);
    expect(worker.user).toBe('1000:1000');
    expect(worker).toMatchObject({
      read_only: true,
      tmpfs: ['/tmp'],
      cap_drop: ['ALL'],
      security_opt: ['no-new-privileges:true'],
    });
    expect(worker.ports).toEqual(['9465:9465', '9464:9464']);
    expect(JSON.stringify(worker.healthcheck?.test)).toContain('http://127.0.0.1:8081/readyz');
  });

  it('interpolates as Compose does: defaults, set values, and $$ as a literal $', () => {
    expect(interpolate('${A:-x} ${B-y} $$HOME $${C}', { B: '' })).toBe('x  $HOME ${C}');
    expect(interpolate('${A:-x}', { A: 'set' })).toBe('set');
    expect(variablesIn('${A:-x} $B $$C ${D}')).toEqual([
      { name: 'A', operator: ':-', operand: 'x' },
      { name: 'B' },
      { name: 'D' },
    ]);
    expect(() => interpolate('${A:?is needed}')).toThrow('A is required: is needed');
  });
});
