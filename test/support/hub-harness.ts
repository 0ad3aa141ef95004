import { createStorage } from 'unstorage';
import { afterAll, beforeAll, describe } from 'vitest';
import { type StartNodeHubOptions, startNodeHub } from '../../hub/src/adapter/node/start-node-hub';
import type { HubInput } from '../../hub/src/compose-hub';
import { composeHub, type Hub } from '../../hub/src/compose-hub';
import { loadHubConfig } from '../../hub/src/config/hub-config';
import { loadRegistryProvidersFromEnv } from '../../hub/src/registries/load-registry-providers';
import type { Environment } from '../../shared/config/env-source';
import { createLogRing } from '../../shared/logging/log-ring';
import { createLogger, type LogSink, silentSink } from '../../shared/logging/logger';
import type { LogEntry } from '../../shared/schemas/log-entry';

/**
 * Where a hub under test runs: in memory (app.request), on Node on a real socket (`npm start`), or
 * the Worker bundle under workerd through Miniflare on a loopback listener (`wrangler dev`).
 */
export type HubMode = 'memory' | 'server' | 'workerd';

/** A hub under test, reached in memory, over a real socket or in workerd; same calls either way. */
export interface HubClient {
  mode: HubMode;
  /** The hub object itself; there is none in this process under workerd (reading it throws). */
  hub: Hub;
  /** Base URL when listening (server and workerd modes). */
  url: string | undefined;
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Every line the hub logged, with its fields, for secret-leak checks (under workerd: what it printed so far). */
  logged: { entry: LogEntry; fields: Record<string, unknown> | undefined }[];
  close(): Promise<void>;
}

/**
 * Every suite is a load generator from one address (in memory, from no address at all), so the
 * server-wide request limit (1,000 per 15 minutes) is raised here; a test of the limit sets its own.
 */
export const HARNESS_REQUEST_LIMIT = { DD_SERVER_RATELIMIT_MAX: '1000000000' };

const readNothing = (path: string): string => {
  throw new Error(`no file ${path} in tests`);
};

function capturingSink(into: HubClient['logged']): LogSink {
  return (entry, fields) => {
    into.push({ entry, fields });
    silentSink(entry, fields);
  };
}

/**
 * The hub in memory: composeHub with the memory driver, requests through app.request. `deps`
 * adds what a test needs besides (a Docker host, a shorter deadline).
 */
export async function createMemoryHub(env: Environment = {}, deps: Partial<HubInput> = {}): Promise<HubClient> {
  const logged: HubClient['logged'] = [];
  const config = loadHubConfig({ DD_STORE_DRIVER: 'memory', ...HARNESS_REQUEST_LIMIT, ...env }, readNothing);
  const logRing = createLogRing(1000, config.log.bufferEnabled);
  const logger = createLogger({ level: config.log.level, ring: logRing, sink: capturingSink(logged) });
  const registries = await loadRegistryProvidersFromEnv(env, readNothing, {
    now: Date.now,
    fetch: (input, init) => fetch(input, init),
  });
  const hub = composeHub({
    config,
    storage: createStorage(),
    logger,
    logRing,
    version: '0.0.0-test',
    runtime: 'test',
    registries,
    ...deps,
  });
  await hub.start();
  return {
    mode: 'memory',
    hub,
    url: undefined,
    request: async (path, init) => hub.app.request(path, init),
    logged,
    close: () => hub.stop(),
  };
}

/** The hub as `npm start` runs it, in-process, listening on an ephemeral loopback port. */
export async function createServerHub(env: Environment = {}, deps?: StartNodeHubOptions['deps']): Promise<HubClient> {
  const logged: HubClient['logged'] = [];
  const running = await startNodeHub({
    // No local watcher unless a test asks for one: /var/run/docker.sock is not a test server.
    env: {
      DD_STORE_DRIVER: 'memory',
      DD_SERVER_PORT: '0',
      DD_SERVER_HOST: '127.0.0.1',
      DD_LOCAL_WATCHER: 'false',
      ...HARNESS_REQUEST_LIMIT,
      ...env,
    },
    sink: capturingSink(logged),
    ...(deps && { deps }),
  });
  return {
    mode: 'server',
    hub: running.hub,
    url: running.url,
    request: (path, init) => fetch(`${running.url}${path}`, init),
    logged,
    close: () => running.close(),
  };
}

/** One workerd log line (consoleJsonSink's JSON), or a line the runtime printed itself. */
function parseWorkerdLine(line: string): HubClient['logged'][number] {
  try {
    const { level, component, msg, timestamp, ...fields } = JSON.parse(line) as Record<string, unknown>;
    return { entry: { level, component, msg, timestamp } as LogEntry, fields };
  } catch {
    return { entry: { level: 'info', component: 'workerd', msg: line, timestamp: 0 }, fields: undefined };
  }
}

/**
 * The hub's Worker bundle under workerd (test/support/workers-hub.ts), with `env` as its Worker
 * vars, reached over its loopback listener by Node's fetch, as the server mode is. Without
 * DD_AUTH_* a Worker runs open only when DD_SERVER_HOST says so on purpose; the harness says it.
 */
export async function createWorkerdHub(env: Environment = {}): Promise<HubClient> {
  // Imported here: the suites that never run on workerd do not load Miniflare.
  const { startWorkersHub } = await import('./workers-hub');
  const vars = { DD_SERVER_HOST: '0.0.0.0', ...HARNESS_REQUEST_LIMIT, ...env };
  const running = await startWorkersHub({ vars, listen: true });
  const client: HubClient = {
    mode: 'workerd',
    get hub(): Hub {
      throw new Error('no hub object in this process under workerd: skip the case there, with its reason');
    },
    url: running.url,
    request: (path, init) => fetch(`${running.url}${path}`, init),
    get logged() {
      return running
        .output()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map(parseWorkerdLine);
    },
    close: () => running.dispose(),
  };
  return client;
}

const START: Record<HubMode, (env: Environment) => Promise<HubClient>> = {
  memory: (env) => createMemoryHub(env),
  server: (env) => createServerHub(env),
  workerd: createWorkerdHub,
};

export interface HubMatrixOptions {
  /** Where the suite runs; in memory and on a socket unless it opts into workerd as well. */
  modes?: readonly HubMode[];
}

/**
 * Runs a suite in memory and against a real listening server (the nitro/h3 `describeMatrix`
 * idea), and under workerd when it opts in: behaviour that differs between them is a bug. One hub
 * per mode and per describe, shared by its tests. The suite gets the mode as a capability flag,
 * for `it.skipIf(mode === 'workerd')` with the reason written beside it.
 */
export function describeHubMatrix(
  name: string,
  suite: (client: () => HubClient, mode: HubMode) => void,
  env: Environment = {},
  { modes = ['memory', 'server'] }: HubMatrixOptions = {},
): void {
  // `npm run test:fast` starts no workerd (vitest.fast.config.ts); `npm test` runs every mode asked for.
  const fast = process.env['DOCKWATCH_TEST_FAST'] === '1';
  for (const mode of fast ? modes.filter((m) => m !== 'workerd') : modes) {
    describe(`${name} [${mode}]`, () => {
      let client: HubClient | undefined;
      beforeAll(async () => {
        client = await START[mode](env);
      });
      afterAll(async () => {
        await client?.close();
      });
      suite(() => {
        if (!client) throw new Error('hub not started');
        return client;
      }, mode);
    });
  }
}

export const jsonInit = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

/** Asserts an http-interface §2.15 error body and returns it. */
export async function expectJsonError(
  response: Response,
  status: number,
): Promise<{ error: string; details?: Record<string, unknown> }> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
  if (!response.headers.get('content-type')?.includes('application/json'))
    throw new Error(`not JSON: ${response.headers.get('content-type')}`);
  const body = JSON.parse(text) as { error?: unknown; details?: unknown };
  if (typeof body.error !== 'string' || body.error.length === 0) throw new Error(`no error message: ${text}`);
  if (body.details !== undefined && (typeof body.details !== 'object' || body.details === null))
    throw new Error(`bad details: ${text}`);
  return body as { error: string; details?: Record<string, unknown> };
}

/**
 * describeHubMatrix on every runtime, workerd included: for the suites that need no Docker socket
 * and no in-process fake (issue 16: one definition, not copies). A case that cannot hold under
 * workerd is skipped there with `it.skipIf(mode === 'workerd')` and its reason in a comment.
 */
export function describeRuntimeMatrix(
  name: string,
  suite: (client: () => HubClient, mode: HubMode) => void,
  env: Environment = {},
): void {
  describeHubMatrix(name, suite, env, { modes: ['memory', 'server', 'workerd'] });
}
