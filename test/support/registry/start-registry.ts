/**
 * Throwaway registries for tests: Debian's `docker-registry` (distribution 2.8) on 127.0.0.1 and a
 * free port, with its own temp dir, in four variants (plain, basic, token, tls).
 *
 * What distribution 2.8.2 (Debian bookworm) does, as observed against these registries; a client
 * under test must cope with all of it:
 * - Accept decides what a manifest GET/HEAD returns. An OCI manifest or index asked for without its
 *   OCI media type (a wildcard Accept included) answers 404 MANIFEST_UNKNOWN ("OCI manifest found, but
 *   accept header does not support OCI manifests"). A Docker v2 manifest asked for by tag with no
 *   Accept is converted to schema 1 (`…manifest.v1+prettyjws`, another digest); by digest it is served
 *   as stored. A Docker manifest list asked for with only the v2 manifest type is answered with its
 *   linux/amd64 child and that child's digest. Hence push-image's MANIFEST_ACCEPT.
 * - HEAD on a manifest sends GET's headers (Content-Type, Content-Length, Docker-Content-Digest, Etag)
 *   without a body, under the same Accept rules; errors are status-only (Content-Length, no body).
 * - `tags/list` is unsorted (storage order), ignores `n` and `last`, sends no `Link`, and lists
 *   `"tags": null` once every tag is deleted; the repository stays in `_catalog`, which does page.
 * - DELETE works by digest only (by tag: 400 DIGEST_INVALID), removes every tag on that manifest, and
 *   a second DELETE answers 404.
 * - Uploads: POST …/blobs/uploads/ answers 202 with an absolute Location (from the Host header) that
 *   already has `?_state=`; manifests naming a missing blob or child answer 400 MANIFEST_BLOB_UNKNOWN.
 *   Nested indexes and Docker lists holding OCI attestation manifests are accepted.
 * - WWW-Authenticate: none for plain and tls. Basic: `Basic realm="test-registry"` on every 401,
 *   wrong password included. Token: `/v2/` sends `Bearer realm="<token url>",service="test-registry"`
 *   without scope; repository endpoints add `scope="repository:NAME:pull"` (GET, HEAD),
 *   `…:pull,push` (POST, PUT) or `…:delete` (DELETE: pull,push is not enough); `_catalog` asks for
 *   `registry:catalog:*`. A token lacking the action adds `error="insufficient_scope"`, a forged one
 *   `error="invalid_token"`. Any valid token, whatever its access, opens `/v2/`.
 * - TLS negotiates HTTP/2; plain HTTP to the TLS port gets 400 "Client sent an HTTP request to an
 *   HTTPS server". A port already taken makes it exit with "bind: address already in use".
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { terminate } from '../terminate';
import { startTokenServer, type TokenServer } from './token-server';

export type RegistryVariant = 'plain' | 'basic' | 'token' | 'tls';

export interface StartRegistryOptions {
  variant: RegistryVariant;
  /** Accounts for `basic` and `token`; defaults to one test user. Ignored by `plain` and `tls`. */
  users?: Record<string, string>;
  /**
   * The registry's own webhook notifications (its config's `notifications.endpoints`): each
   * endpoint gets every event as a `{events: [...]}` envelope, POSTed with these headers.
   */
  notifications?: RegistryNotificationEndpoint[];
}

/** One `notifications.endpoints` entry of distribution's configuration. */
export interface RegistryNotificationEndpoint {
  name: string;
  url: string;
  headers?: Record<string, string[]>;
  /** Go durations: `500ms`, `1s`. */
  timeout?: string;
  threshold?: number;
  backoff?: string;
  /** Events of these target media types are not sent (`application/octet-stream`: blob pushes). */
  ignoredmediatypes?: string[];
  /** Events of these actions (`pull`) or media types are not sent either (distribution 2.7 and later). */
  ignore?: { mediatypes?: string[]; actions?: string[] };
}

export interface TestRegistry {
  /** `http://127.0.0.1:PORT`, or `https://…` for `tls`. */
  url: string;
  /** `127.0.0.1:PORT`, the form image references use. */
  host: string;
  variant: RegistryVariant;
  users: Record<string, string>;
  /** PEM of the self-signed server certificate (`tls` only): pass it to the client as its CA. */
  caFile?: string;
  tokenServer?: TokenServer;
  /** The registry's own log, kept for debugging a failing test. */
  logFile: string;
  stop(): Promise<void>;
}

const REGISTRY_BINARY = '/usr/bin/docker-registry';
const HTPASSWD_BINARY = '/usr/bin/htpasswd';
const OPENSSL_BINARY = '/usr/bin/openssl';
export const TOKEN_SERVICE = 'test-registry';
export const TOKEN_ISSUER = 'test-issuer';
const DEFAULT_USERS: Record<string, string> = { tester: 'test-password' };
const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;
const PORT_ATTEMPTS = 5;

/** Registries a test never stopped (a crash between start and stop) are killed when the worker exits. */
const live = new Map<ChildProcess, { exited: Promise<void>; dir: string }>();
let exitHookInstalled = false;

export async function startRegistry(options: StartRegistryOptions): Promise<TestRegistry> {
  for (const binary of [REGISTRY_BINARY, HTPASSWD_BINARY, OPENSSL_BINARY]) {
    if (!existsSync(binary))
      throw new Error(`${binary} not found; run \`node scripts/ensure-testbed.mjs\` to install it`);
  }
  const { variant } = options;
  const users = variant === 'basic' || variant === 'token' ? (options.users ?? DEFAULT_USERS) : {};
  const dir = await mkdtemp(join(tmpdir(), `dockwatch-registry-${variant}-`));
  let tokenServer: TokenServer | undefined;
  try {
    const { auth, tls, ...prepared } = await prepareVariant(variant, dir, users);
    tokenServer = prepared.tokenServer;
    const scheme = variant === 'tls' ? 'https' : 'http';
    const caFile = variant === 'tls' ? join(dir, 'server.crt') : undefined;
    const ca = caFile ? await readFile(caFile, 'utf8') : undefined;
    const logFile = join(dir, 'registry.log');
    const { child, port } = await spawnOnFreePort(dir, logFile, {
      auth,
      tls,
      scheme,
      ca,
      notifications: options.notifications ?? [],
    });
    const host = `127.0.0.1:${port}`;
    return {
      url: `${scheme}://${host}`,
      host,
      variant,
      users,
      ...(caFile ? { caFile } : {}),
      ...(tokenServer ? { tokenServer } : {}),
      logFile,
      async stop() {
        await stopProcess(child);
        await tokenServer?.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await tokenServer?.close();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

interface PreparedVariant {
  auth: Record<string, unknown>;
  tls: Record<string, string>;
  tokenServer?: TokenServer;
}

/** Writes what the variant's config section points to (htpasswd, certificates) and starts its token server. */
async function prepareVariant(
  variant: RegistryVariant,
  dir: string,
  users: Record<string, string>,
): Promise<PreparedVariant> {
  if (variant === 'basic') {
    // The registry accepts only bcrypt entries, hence htpasswd -B rather than a hash made here.
    const lines = Object.entries(users).map(([user, password]) =>
      run(HTPASSWD_BINARY, ['-Bbn', user, password]).trim(),
    );
    await writeFile(join(dir, 'htpasswd'), `${lines.join('\n')}\n`);
    return { auth: { htpasswd: { realm: 'test-registry', path: join(dir, 'htpasswd') } }, tls: {} };
  }
  if (variant === 'token') {
    selfSignedCertificate(dir, 'token', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], 'test-token-signer');
    const [keyPem, certPem] = await Promise.all([
      readFile(join(dir, 'token.key'), 'utf8'),
      readFile(join(dir, 'token.crt'), 'utf8'),
    ]);
    const tokenServer = await startTokenServer({
      issuer: TOKEN_ISSUER,
      service: TOKEN_SERVICE,
      keyPem,
      certPem,
      users,
    });
    const token = {
      realm: tokenServer.url,
      service: TOKEN_SERVICE,
      issuer: TOKEN_ISSUER,
      rootcertbundle: join(dir, 'token.crt'),
    };
    return { auth: { token }, tls: {}, tokenServer };
  }
  if (variant === 'tls') {
    selfSignedCertificate(
      dir,
      'server',
      ['-newkey', 'rsa:2048', '-addext', 'subjectAltName=IP:127.0.0.1'],
      '127.0.0.1',
    );
    return { auth: {}, tls: { certificate: join(dir, 'server.crt'), key: join(dir, 'server.key') } };
  }
  return { auth: {}, tls: {} };
}

interface SpawnSettings {
  auth: Record<string, unknown>;
  tls: Record<string, string>;
  scheme: 'http' | 'https';
  ca: string | undefined;
  notifications: RegistryNotificationEndpoint[];
}

/** The port is free when probed but another process may take it before the registry binds: retry then. */
async function spawnOnFreePort(
  dir: string,
  logFile: string,
  settings: SpawnSettings,
): Promise<{ child: ChildProcess; port: number }> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await findFreePort();
    const configFile = join(dir, 'config.yml');
    await writeFile(configFile, JSON.stringify(registryConfig(dir, port, settings), null, 2));
    const child = spawnRegistry(configFile, logFile);
    try {
      await waitUntilServing(child, `${settings.scheme}://127.0.0.1:${port}/v2/`, settings.ca);
      return { child, port };
    } catch (error) {
      await stopProcess(child);
      const log = await readLogTail(logFile);
      if (attempt < PORT_ATTEMPTS && /address already in use/i.test(log)) continue;
      throw new Error(`${(error as Error).message}\n--- registry log (tail) ---\n${log}`);
    }
  }
}

/** JSON is valid YAML, so the config needs no YAML writer and paths need no quoting rules. */
function registryConfig(dir: string, port: number, settings: SpawnSettings): Record<string, unknown> {
  return {
    version: '0.1',
    log: { level: 'info', formatter: 'text', accesslog: { disabled: false } },
    storage: {
      filesystem: { rootdirectory: join(dir, 'data') },
      delete: { enabled: true },
      cache: { blobdescriptor: 'inmemory' },
    },
    http: {
      addr: `127.0.0.1:${port}`,
      // A fixed secret silences the "generated random secret" warning; one instance needs no shared one.
      secret: 'dockwatch-test-registry',
      headers: { 'X-Content-Type-Options': ['nosniff'] },
      ...(Object.keys(settings.tls).length > 0 ? { tls: settings.tls } : {}),
    },
    ...(Object.keys(settings.auth).length > 0 ? { auth: settings.auth } : {}),
    ...(settings.notifications.length > 0 ? { notifications: { endpoints: settings.notifications } } : {}),
    // The default 10 s storage health check would only add log noise to short-lived registries.
    health: { storagedriver: { enabled: false } },
  };
}

function spawnRegistry(configFile: string, logFile: string): ChildProcess {
  // Truncated per attempt, so a retry decision never rests on an earlier attempt's log.
  const fd = openSync(logFile, 'w');
  try {
    // A clean environment: REGISTRY_* variables of the host would silently override the config file.
    const child = spawn(REGISTRY_BINARY, ['serve', configFile], {
      stdio: ['ignore', fd, fd],
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    live.set(child, { exited, dir: dirname(logFile) });
    installExitHook();
    return child;
  } finally {
    closeSync(fd);
  }
}

async function waitUntilServing(child: ChildProcess, url: string, ca: string | undefined): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`docker-registry exited during start-up (code ${child.exitCode}, signal ${child.signalCode})`);
    }
    const status = await probe(url, ca);
    if (status === 200 || status === 401) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`docker-registry did not answer ${url} within ${START_TIMEOUT_MS} ms`);
}

/** Status of one GET, or undefined while nothing listens yet. node:https because it takes a CA per request. */
function probe(url: string, ca: string | undefined): Promise<number | undefined> {
  return new Promise((resolve) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = send(url, { method: 'GET', agent: false, timeout: 2_000, ...(ca ? { ca } : {}) }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(undefined));
    req.end();
  });
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function selfSignedCertificate(dir: string, name: string, keyArgs: string[], commonName: string): void {
  const args = ['req', '-x509', ...keyArgs, '-nodes', '-days', '2', '-subj', `/CN=${commonName}`];
  run(OPENSSL_BINARY, [...args, '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.crt`)]);
}

function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new Error(`start-registry: ${command} ${args[0]} failed: ${result.error?.message ?? result.stderr}`);
  }
  return result.stdout;
}

async function readLogTail(logFile: string): Promise<string> {
  const log = await readFile(logFile, 'utf8').catch(() => '');
  return log.split('\n').slice(-30).join('\n');
}

async function stopProcess(child: ChildProcess): Promise<void> {
  const exited = live.get(child)?.exited ?? Promise.resolve();
  live.delete(child);
  await terminate(child, exited, STOP_TIMEOUT_MS);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const [child, { dir }] of live) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
