// Temporal on PostgreSQL, for real: Debian's PostgreSQL server (scripts/ensure-postgres.sh) on a
// data folder of its own, Temporal's schemas created and updated by its SQL tool, the Temporal
// server (temporal-server, built from the Go module proxy by scripts/build-servers.sh) on the
// configuration docker-compose.yml runs (deploy/temporal/config/), and the namespace and search
// attributes registered by the script Compose runs (deploy/temporal/setup-namespace.sh). For the
// PostgreSQL smoke suite and `npm run dev:up -- --temporal postgres`.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runBuildScript } from './binaries.js';
import { repoRoot } from './paths.js';
import {
  freePorts,
  isAlive,
  portIsFree,
  sleep,
  spawnServer,
  stopServer,
  waitFor,
  type ServerProcess,
  type SpawnOptions,
} from './process.js';
import { missingSearchAttributes, temporalReady, TEMPORAL_NAMESPACE } from './temporal.js';

const run = promisify(execFile);

/** The configuration folder docker-compose.yml mounts: config/dispatch.yaml, its dynamic config and the setup scripts. */
export const TEMPORAL_DEPLOY_DIR = join(repoRoot, 'deploy', 'temporal');

/** How docker-compose.yml and the harness run the server, from TEMPORAL_DEPLOY_DIR. */
export const TEMPORAL_SERVER_ARGS = ['--allow-no-auth', '--env', 'dispatch', 'start'] as const;

export interface PostgresTemporalBinaries {
  /** temporal-server, temporal-sql-tool and the schema folder (schema/postgresql/v12/...). */
  temporalServer: string;
  sqlTool: string;
  schemaDir: string;
  /** Debian's PostgreSQL programs (initdb, postgres, psql). */
  postgresBin: string;
  /** The temporal CLI, which the namespace setup runs. */
  cli: string;
}

const lineOf = (stdout: string, key: string) =>
  stdout
    .split('\n')
    .find((line) => line.startsWith(`${key}=`))
    ?.slice(key.length + 1)
    .trim();

/**
 * The Temporal server, its SQL tool and schemas (built once if missing: scripts/build-servers.sh
 * builds whatever else is missing too), and Debian's PostgreSQL (installed if missing).
 */
export async function postgresTemporalBinaries(cli: string): Promise<PostgresTemporalBinaries> {
  let servers = await runBuildScript('build-servers.sh', ['--print']);
  if (!lineOf(servers.stdout, 'temporal-server')) servers = await runBuildScript('build-servers.sh', []);
  const postgres = await runBuildScript('ensure-postgres.sh', []);
  const found = {
    temporalServer: lineOf(servers.stdout, 'temporal-server'),
    sqlTool: lineOf(servers.stdout, 'temporal-sql-tool'),
    schemaDir: lineOf(servers.stdout, 'temporal-schema'),
    postgresBin: lineOf(postgres.stdout, 'postgres-bin'),
  };
  const missing = Object.entries(found).filter(([, path]) => !path);
  if (missing.length > 0)
    throw new Error(
      `Temporal on PostgreSQL needs ${missing.map(([name]) => name).join(', ')}: scripts/build-servers.sh (exit ${servers.code}) ` +
        `and scripts/ensure-postgres.sh (exit ${postgres.code}) did not report them; their output is above`,
    );
  return { ...(found as Omit<PostgresTemporalBinaries, 'cli'>), cli };
}

/** How to reach the PostgreSQL server, e.g. to look at what Temporal stored. */
export interface PostgresInfo {
  host: string;
  port: number;
  user: string;
  password: string;
  /** Debian's PostgreSQL programs (psql is there). */
  bin: string;
  /** Its data folder (removed when the stack stops). */
  dataDir: string;
}

/**
 * Runs as the `postgres` user when this process is root (PostgreSQL refuses to run as root):
 * setpriv execs the program, so the pid the harness holds is the program's own.
 */
function asPostgresUser(command: string, args: string[]): { command: string; args: string[] } {
  if (process.getuid?.() !== 0) return { command, args };
  return {
    command: 'setpriv',
    args: ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args],
  };
}

/** The postgres user's uid and gid when this process is root (it must own the data folder). */
function postgresOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  // node:os looks up only the current user; /etc/passwd is where Debian's package adds postgres.
  const fields = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((line) => line.startsWith('postgres:'))
    ?.split(':');
  if (!fields)
    throw new Error(
      "running PostgreSQL as root needs the postgres user, which Debian's package creates: none in /etc/passwd",
    );
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

export interface Postgres {
  process: ServerProcess;
  info: PostgresInfo;
}

/**
 * A PostgreSQL server on 127.0.0.1:`port`: a new cluster in `dir` (initdb; superuser `temporal`
 * with a password, scram-sha-256 over TCP), no Unix socket, fsync off (test data, as etcd's).
 */
export async function startPostgres(
  options: Pick<SpawnOptions, 'lifeline' | 'detach'> & {
    bin: string;
    dir: string;
    port: number;
    logDir: string;
  },
): Promise<Postgres> {
  const owner = postgresOwner();
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  if (owner) chownSync(options.dir, owner.uid, owner.gid);
  const user = 'temporal';
  const password = randomBytes(12).toString('hex');
  const pwfile = join(options.dir, 'pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner) chownSync(pwfile, owner.uid, owner.gid);
  const dataDir = join(options.dir, 'data');
  const initdb = asPostgresUser(join(options.bin, 'initdb'), [
    `--pgdata=${dataDir}`,
    `--username=${user}`,
    `--pwfile=${pwfile}`,
    '--auth-host=scram-sha-256',
    '--auth-local=peer',
    '--encoding=UTF8',
    '--locale=C',
    '--no-sync',
    '--no-instructions',
  ]);
  await run(initdb.command, initdb.args).catch((err: { stderr?: string; message: string }) => {
    throw new Error(`initdb failed: ${err.stderr || err.message}`, { cause: err });
  });
  rmSync(pwfile, { force: true });
  const server = asPostgresUser(join(options.bin, 'postgres'), [
    '-D',
    dataDir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `port=${options.port}`,
    '-c',
    'unix_socket_directories=',
    '-c',
    'fsync=off',
  ]);
  const process = spawnServer({
    name: 'postgres',
    command: server.command,
    args: server.args,
    logFile: join(options.logDir, 'postgres.log'),
    lifeline: options.lifeline,
    detach: options.detach,
  });
  const info: PostgresInfo = {
    host: '127.0.0.1',
    port: options.port,
    user,
    password,
    bin: options.bin,
    dataDir: options.dir,
  };
  await waitFor(
    async () =>
      await run(join(options.bin, 'pg_isready'), ['-h', info.host, '-p', String(info.port), '-q']).then(
        () => true,
        () => undefined,
      ),
    { what: `PostgreSQL at ${info.host}:${info.port}`, timeoutMs: 30_000, intervalMs: 200, server: process },
  );
  return { process, info };
}

/**
 * Stops PostgreSQL with a fast shutdown: SIGINT to the postmaster alone (its backends share its
 * process group, and a signal to the group would kill them under it), then as any server.
 */
export async function stopPostgres(server: ServerProcess | number): Promise<void> {
  const pid = typeof server === 'number' ? server : server.pid;
  const gone = typeof server === 'number' ? () => !isAlive(pid) : server.hasExited;
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return; // already gone
  }
  const deadline = Date.now() + 10_000;
  while (!gone() && Date.now() < deadline) await sleep(50);
  await stopServer(server);
}

/** Runs an SQL query through psql; answers its unaligned, tuples-only output. */
export async function psql(info: PostgresInfo, database: string, sql: string): Promise<string> {
  const { stdout } = await run(
    join(info.bin, 'psql'),
    [
      '-h',
      info.host,
      '-p',
      String(info.port),
      '-U',
      info.user,
      '-d',
      database,
      '-X',
      '-A',
      '-t',
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      sql,
    ],
    { env: { ...process.env, PGPASSWORD: info.password } },
  );
  return stdout.trim();
}

/** The environment deploy/temporal/config/dispatch.yaml and the setup scripts read. */
function serverEnv(
  pg: PostgresInfo,
  ports: TemporalServerPorts,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    POSTGRES_HOST: pg.host,
    POSTGRES_PORT: String(pg.port),
    POSTGRES_USER: pg.user,
    POSTGRES_PASSWORD: pg.password,
    TEMPORAL_BIND_IP: '127.0.0.1',
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    TEMPORAL_FRONTEND_PORT: String(ports.frontend),
    TEMPORAL_FRONTEND_HTTP_PORT: String(ports.frontendHttp),
    TEMPORAL_FRONTEND_MEMBERSHIP_PORT: String(ports.frontendMembership),
    TEMPORAL_HISTORY_PORT: String(ports.history),
    TEMPORAL_HISTORY_MEMBERSHIP_PORT: String(ports.historyMembership),
    TEMPORAL_MATCHING_PORT: String(ports.matching),
    TEMPORAL_MATCHING_MEMBERSHIP_PORT: String(ports.matchingMembership),
    TEMPORAL_WORKER_PORT: String(ports.worker),
    TEMPORAL_WORKER_MEMBERSHIP_PORT: String(ports.workerMembership),
    TEMPORAL_METRICS_PORT: String(ports.metrics),
    TEMPORAL_LOG_LEVEL: process.env.DISPATCH_TEMPORAL_LOG_LEVEL ?? 'warn',
    ...extra,
  };
}

const PORT_NAMES = [
  'frontend',
  'frontendHttp',
  'frontendMembership',
  'history',
  'historyMembership',
  'matching',
  'matchingMembership',
  'worker',
  'workerMembership',
  'metrics',
] as const;
export type TemporalServerPorts = Record<(typeof PORT_NAMES)[number], number>;

/**
 * The membership ports go into cluster_membership.rpc_port, a smallint in Temporal's PostgreSQL
 * schema: above 32767 the server cannot register itself ("value out of range for type smallint")
 * and exits. The ports the system hands out for port 0 are above it, so these are picked below.
 */
const MEMBERSHIP_PORTS: readonly (typeof PORT_NAMES)[number][] = [
  'frontendMembership',
  'historyMembership',
  'matchingMembership',
  'workerMembership',
];

/** Distinct ports in [10000, below) that can be bound on 127.0.0.1 now, picked at random. */
async function freePortsBelow(count: number, below: number): Promise<number[]> {
  const ports = new Set<number>();
  for (let tries = 0; ports.size < count; tries++) {
    if (tries > 1_000) throw new Error(`no ${count} free ports below ${below}`);
    const port = 10_000 + Math.floor(Math.random() * (below - 10_000));
    if (!ports.has(port) && (await portIsFree(port))) ports.add(port);
  }
  return [...ports];
}

/** Runs one of deploy/temporal's setup scripts; its output goes to `<logDir>/<name>.log`. */
async function setupScript(script: string, env: NodeJS.ProcessEnv, logDir: string): Promise<void> {
  const log = join(logDir, `${script.replace(/\.sh$/, '')}.log`);
  try {
    const { stdout, stderr } = await run('/bin/sh', [join(TEMPORAL_DEPLOY_DIR, script)], {
      env,
      maxBuffer: 16 * 1024 * 1024,
    });
    writeFileSync(log, `${stdout}${stderr}`);
  } catch (err) {
    const {
      stdout = '',
      stderr = '',
      message,
    } = err as { stdout?: string; stderr?: string; message: string };
    writeFileSync(log, `${stdout}${stderr}`);
    const tail = `${stdout}${stderr}`.trimEnd().split('\n').slice(-20).join('\n');
    throw new Error(`deploy/temporal/${script} failed (${message.split('\n')[0]}); log ${log}:\n${tail}`, {
      cause: err,
    });
  }
}

export interface PostgresTemporal {
  /** host:port of the frontend. */
  address: string;
  postgres: Postgres;
  server: ServerProcess;
  ports: TemporalServerPorts;
  stop(): Promise<void>;
}

/**
 * PostgreSQL, the schemas (deploy/temporal/setup-schema.sh), the Temporal server on
 * deploy/temporal/config/, the namespace and search attributes (deploy/temporal/setup-namespace.sh):
 * resolves once the server lists every search attribute. `dataDir` is PostgreSQL's (removed by stop()).
 */
export async function startPostgresTemporal(
  options: Pick<SpawnOptions, 'lifeline' | 'detach'> & {
    binaries: PostgresTemporalBinaries;
    dataDir: string;
    logDir: string;
  },
): Promise<PostgresTemporal> {
  const { binaries } = options;
  const [pgPort, ...serverPorts] = await freePorts(1 + PORT_NAMES.length - MEMBERSHIP_PORTS.length);
  const membership = await freePortsBelow(MEMBERSHIP_PORTS.length, 32_768);
  const ports = Object.fromEntries([
    ...PORT_NAMES.filter((name) => !MEMBERSHIP_PORTS.includes(name)).map((name, i) => [
      name,
      serverPorts[i]!,
    ]),
    ...MEMBERSHIP_PORTS.map((name, i) => [name, membership[i]!]),
  ]) as TemporalServerPorts;
  const launch = { lifeline: options.lifeline, detach: options.detach };
  const postgres = await startPostgres({
    ...launch,
    bin: binaries.postgresBin,
    dir: options.dataDir,
    port: pgPort!,
    logDir: options.logDir,
  });
  let server: ServerProcess | undefined;
  const stop = async () => {
    if (server) await stopServer(server);
    await stopPostgres(postgres.process);
    rmSync(options.dataDir, { recursive: true, force: true });
  };
  try {
    const address = `127.0.0.1:${ports.frontend}`;
    const env = serverEnv(postgres.info, ports, {
      TEMPORAL_SQL_TOOL: binaries.sqlTool,
      TEMPORAL_SCHEMA_DIR: binaries.schemaDir,
      TEMPORAL_CLI: binaries.cli,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE,
    });
    await setupScript('setup-schema.sh', env, options.logDir);
    server = spawnServer({
      name: 'temporal-server',
      command: binaries.temporalServer,
      args: [...TEMPORAL_SERVER_ARGS],
      cwd: TEMPORAL_DEPLOY_DIR,
      env,
      logFile: join(options.logDir, 'temporal-server.log'),
      ...launch,
    });
    const started = server;
    await Promise.race([
      setupScript('setup-namespace.sh', env, options.logDir),
      started.exited.then((code) => {
        throw new Error(
          `temporal-server exited (${code}) during the namespace setup; log ${started.logFile}`,
        );
      }),
    ]);
    // The setup registered them on this very server: one missing now is missing for good.
    const missing = await missingSearchAttributes(address);
    if (missing.length > 0)
      throw new Error(`Temporal on PostgreSQL at ${address} lacks the search attributes ${missing.join(', ')} after deploy/temporal/setup-namespace.sh`);
    await waitFor(() => temporalReady(address), {
      what: `Temporal on PostgreSQL at ${address}`,
      timeoutMs: 60_000,
      intervalMs: 200,
      server,
    });
    return { address, postgres, server, ports, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
