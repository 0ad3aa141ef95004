/**
 * SBOMs and vulnerability scans of agents' containers (docs/security-scanning.md "Agents"), on real
 * components: the scan bed (a dockerd, a registry the images were pushed to with the docker CLI, a
 * container running the vulnerable 1.0.0), an edge agent as a real process (`npm run agent`) and a
 * listen-mode agent as a real process (`npm run agent -- --listen`) on that dockerd, and a hub in
 * process on a real socket for each, with no Docker host of its own. The hub reads the edge agent's image
 * through `image.export` (chunk frames under its credit), the listen agent's through
 * `GET /api/images/{id}/export`, and pulls the update candidate on the agent's host with
 * `image.pull` (the listen agent's `POST /api/images/pull`). A second hub with a local watcher on
 * the same dockerd gives the reference SBOM.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeNewKeyFile } from '../../edge-agent/src/keys/key-file';
import { toBase64 } from '../../shared/edge/sign-in';
import type { Container } from '../../shared/schemas/container';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { type AgentProcess, signedIn, spawnAgent } from '../support/edge-agent-process';
import { edgeUpdateApi, until } from '../support/edge-update-bed';
import { createServerHub, expectJsonError, type HubClient } from '../support/hub-harness';
import { type ListenAgentProcess, startListenAgentProcess } from '../support/listen-agent-process';
import { startRegistry } from '../support/registry/start-registry';
import { OSV_FIXTURE, type ScanBed, startScanBed } from '../support/scan-bed';

const EDGE = 'edge-scan';
const LISTEN = 'nas';
const SECRET = 'listen-secret-for-the-scan-test';

type Json = Record<string, unknown>;
type Finding = { id: string; package: { name: string }; installedVersion: string };
type Scanned = Container & {
  security: {
    status: string;
    target: string;
    image: string;
    delta?: { fixed: { id: string }[]; introduced: { id: string }[] };
  };
};

/** An SPDX document's packages as `name@version`, sorted: the components, whatever ids the hub gave them. */
const components = (document: Json) =>
  (document['packages'] as Json[])
    .map((pkg) => `${pkg['name']}@${pkg['versionInfo']}`)
    .filter((entry) => !entry.startsWith('undefined'))
    .sort();

describe("SBOMs and scans of agents' containers on a real dockerd", () => {
  let bed: ScanBed;
  let dir: string;
  let hub: HubClient;
  /** A hub of its own for the listen agent: both agents see the same containers, by the same ids. */
  let listenHub: HubClient;
  let reference: HubOnDockerd;
  let edgeAgent: AgentProcess | undefined;
  let listenAgent: ListenAgentProcess | undefined;

  const json = async <T>(path: string, client = hub): Promise<T> => (await client.request(path)).json() as Promise<T>;
  const listed = (agent: string, client = hub) =>
    until(
      async () =>
        ((await (await client.request(`/api/v1/containers?agent=${agent}`)).json()) as { data: Container[] }).data.find(
          (container) => container.name === 'scanned',
        ),
      `the container of ${agent} listed`,
      60_000,
    );

  beforeAll(async () => {
    bed = await startScanBed();
    dir = await mkdtemp(join(tmpdir(), 'dd-agent-scan-'));
    const keyFile = join(dir, 'agent.key');
    const key = await writeNewKeyFile(keyFile);
    const authorizedKeys = join(dir, 'authorized_keys');
    await writeFile(authorizedKeys, `${toBase64(key.publicKey)} ${EDGE}\n`);
    const agentEnv = {
      DD_WATCHER_LOCAL_SOCKET: bed.dockerd.socketPath,
      DD_WATCHER_LOCAL_WATCHBYDEFAULT: 'true',
    };
    listenAgent = await startListenAgentProcess({ port: 0, env: { ...agentEnv, DD_AGENT_SECRET: SECRET } });
    const scanner = { DD_SECURITY_SCANNER: 'osv', DD_SECURITY_OSV_FILE: OSV_FIXTURE };
    hub = await createServerHub({ ...scanner, DD_EDGE_AUTHORIZED_KEYS: authorizedKeys });
    listenHub = await createServerHub({
      ...scanner,
      DD_AGENT_NAS_HOST: '127.0.0.1',
      DD_AGENT_NAS_PORT: String(listenAgent.port),
      DD_AGENT_NAS_SECRET: SECRET,
    });
    edgeAgent = spawnAgent({
      hubUrl: hub.url as string,
      keyFile,
      name: EDGE,
      env: { ...agentEnv, DD_EDGE_RECONNECT_MIN_MS: '100', DD_EDGE_RECONNECT_MAX_MS: '400' },
    });
    await edgeAgent.waitForLog(signedIn, 60_000);
    reference = await startHubOnDockerd(bed.dockerd, { DD_WATCHER_LOCAL_WATCHALL: 'true' });
    await reference.refresh();
  }, 240_000);

  afterAll(async () => {
    await edgeAgent?.kill('SIGTERM');
    await listenAgent?.kill('SIGTERM');
    await hub?.close();
    await listenHub?.close();
    await reference?.close();
    await bed?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("reads the edge agent's image through image.export: the same components as the local container's", async () => {
    const local = await reference.json<Json>(`/api/v1/containers/${bed.containerId}/sbom`);
    const expected = components(local);
    expect(expected).toContain('libssl3@3.0.11-1~deb12u1');

    const container = await listed(EDGE);
    const response = await hub.request(`/api/v1/containers/${container.id}/sbom`);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(components((await response.json()) as Json)).toEqual(expected);
  });

  it("reads the listen agent's image through its export route: the same components", async () => {
    // The route itself: the secret is required, an unknown image is a JSON 404, a known one a tar.
    const imageId = (await bed.dockerd.docker.getContainer(bed.containerId).inspect()).Image;
    expect((await fetch(`${listenAgent?.url}/api/images/${imageId}/export?watcher=local`)).status).toBe(401);
    await expectJsonError(
      await fetch(`${listenAgent?.url}/api/images/sha256:${'0'.repeat(64)}/export?watcher=local`, {
        headers: { 'X-Dd-Agent-Secret': SECRET },
      }),
      404,
    );
    const tar = await fetch(`${listenAgent?.url}/api/images/${imageId}/export?watcher=local`, {
      headers: { 'X-Dd-Agent-Secret': SECRET },
    });
    expect(tar.status).toBe(200);
    expect(tar.headers.get('content-type')).toBe('application/x-tar');
    expect((await tar.arrayBuffer()).byteLength).toBeGreaterThan(1024);

    const local = await reference.json<Json>(`/api/v1/containers/${bed.containerId}/sbom`);
    const container = await listed(LISTEN, listenHub);
    const response = await listenHub.request(`/api/v1/containers/${container.id}/sbom`);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(components((await response.json()) as Json)).toEqual(components(local));
  });

  /**
   * Scans the agent's container through `client`, with the candidate absent from the host before:
   * answers the scan's security field and findings; the candidate is on the host after.
   */
  const scanCandidate = async (client: HubClient, agent: string) => {
    await until(
      async () =>
        (await json<{ database: { state: string } }>('/api/v1/containers/security/vulnerabilities', client)).database
          .state === 'ready'
          ? true
          : undefined,
      'the OSV database imported',
    );
    const pending = await edgeUpdateApi(client.request, agent).pending('scanned');
    expect(pending.result?.tag).toBe('1.1.0');
    const tags = async () => (await bed.dockerd.docker.listImages()).flatMap((image) => image.RepoTags ?? []);
    expect(await tags()).not.toContain(bed.ref('1.1.0'));

    const response = await client.request(`/api/v1/containers/${pending.id}/scan`, { method: 'POST' });
    expect(response.status, await response.clone().text()).toBe(200);
    const scanned = (await response.json()) as Scanned;
    const { vulnerabilities } = await json<{ vulnerabilities: Finding[] }>(
      `/api/v1/containers/${pending.id}/vulnerabilities`,
      client,
    );
    // The agent pulled the candidate on its own host to read it.
    expect(await tags()).toContain(bed.ref('1.1.0'));
    return {
      security: scanned.security,
      findings: vulnerabilities.map((f) => [f.id, f.package.name, f.installedVersion]),
    };
  };
  let edgeScan: Awaited<ReturnType<typeof scanCandidate>> | undefined;

  it("scans the edge agent's update candidate, pulled on the agent's host, with the fixture's findings and delta", async () => {
    edgeScan = await scanCandidate(hub, EDGE);
    expect(edgeScan.security).toMatchObject({ status: 'scanned', target: 'candidate', image: bed.ref('1.1.0') });
    expect(edgeScan.security.delta?.fixed.map((finding) => finding.id)).toEqual(['DSA-TEST-0001']);
    expect(edgeScan.findings).toEqual([['DSA-TEST-0003', 'libepoch', '1:1.0-1']]);
  });

  it("scans the listen agent's update candidate, pulled through its pull route: the edge agent's findings and delta", async () => {
    // The edge agent's scan left the candidate on the shared host: gone again, the listen agent must pull it.
    const removed = await bed.dockerd.cli(['rmi', bed.ref('1.1.0')]);
    expect(removed.code, removed.stderr).toBe(0);
    const listenScan = await scanCandidate(listenHub, LISTEN);
    expect(listenScan.security).toMatchObject({ status: 'scanned', target: 'candidate', image: bed.ref('1.1.0') });
    expect(listenScan.security.delta?.fixed.map((finding) => finding.id)).toEqual(['DSA-TEST-0001']);
    expect(listenScan.findings).toEqual([['DSA-TEST-0003', 'libepoch', '1:1.0-1']]);
    const changes = (scan: typeof edgeScan) => ({
      fixed: scan?.security.delta?.fixed,
      introduced: scan?.security.delta?.introduced,
    });
    expect(changes(listenScan)).toEqual(changes(edgeScan));
  });

  it('pulls through the listen route with the credentials in the body, for that pull only', async () => {
    const registry = await startRegistry({ variant: 'basic', users: { alice: 'wonder-land' } });
    const cli = async (args: string[]) => {
      const result = await bed.dockerd.cli(args);
      expect(result.code, `docker ${args.join(' ')}: ${result.stderr}`).toBe(0);
    };
    try {
      const privateRef = `${registry.host}/scan/private:1`;
      await cli(['login', '-u', 'alice', '-p', 'wonder-land', registry.host]);
      await cli(['tag', bed.ref('1.0.0'), privateRef]);
      await cli(['push', privateRef]);
      // From here on the Engine has no credentials of its own for that registry.
      await cli(['logout', registry.host]);
      await cli(['rmi', privateRef]);
      const pull = (auth?: { username: string; password: string; serverAddress: string }) =>
        fetch(`${listenAgent?.url}/api/images/pull?watcher=local`, {
          method: 'POST',
          headers: { 'X-Dd-Agent-Secret': SECRET, 'content-type': 'application/json' },
          body: JSON.stringify({ reference: privateRef, ...(auth && { auth }) }),
        });
      const anonymous = await expectJsonError(await pull(), 500);
      expect(anonymous.details).toEqual({ code: 'failed' });
      expect(anonymous.error).toMatch(/no basic auth credentials|unauthorized/i);
      const wrong = await expectJsonError(
        await pull({ username: 'alice', password: 'not-it', serverAddress: registry.host }),
        500,
      );
      expect(wrong.error).toMatch(/unauthorized|authentication required/i);
      const pulled = await pull({ username: 'alice', password: 'wonder-land', serverAddress: registry.host });
      expect(pulled.status, await pulled.clone().text()).toBe(200);
      const image = (await pulled.json()) as { id: string; repoTags: string[] };
      expect(image.repoTags).toContain(privateRef);
      expect(image.id).toBe((await bed.dockerd.docker.getImage(bed.ref('1.0.0')).inspect()).Id);
      // The credentials were lent for that pull: the Engine keeps none (a plain pull is still refused).
      expect((await bed.dockerd.cli(['pull', privateRef.replace(':1', ':2')])).stderr).toMatch(
        /no basic auth credentials|unauthorized/i,
      );
    } finally {
      await bed.dockerd.cli(['rmi', `${registry.host}/scan/private:1`]);
      await registry.stop();
    }
  });

  it('answers bad pulls on the listen route with JSON errors: secret, body, reference, watcher, tag, registry, deadline', async () => {
    const pull = (body: unknown, { query = '?watcher=local', secret = SECRET } = {}) =>
      fetch(`${listenAgent?.url}/api/images/pull${query}`, {
        method: 'POST',
        headers: { 'X-Dd-Agent-Secret': secret, 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    await expectJsonError(await pull({ reference: bed.ref('1.1.0') }, { secret: 'wrong' }), 401);
    expect((await expectJsonError(await pull('{not json'), 400)).details).toEqual({ parameter: 'body' });
    for (const reference of [
      'UPPER/app:1',
      'app::1',
      ' app:1',
      'app:1\n',
      'bad_host!/app:1',
      'bad_host.example/app:1',
      `app@sha256:${'z'.repeat(3)}`,
    ])
      expect((await expectJsonError(await pull({ reference }), 400)).details, reference).toEqual({
        parameter: 'reference',
      });
    await expectJsonError(await pull({ reference: bed.ref('1.1.0') }, { query: '?watcher=nope' }), 404);

    // A tag the registry does not have, a registry nothing listens on: the Engine's reason, code `failed`.
    const unknownTag = await expectJsonError(await pull({ reference: bed.ref('9.9.9') }), 500);
    expect(unknownTag.details).toEqual({ code: 'failed' });
    expect(unknownTag.error).toMatch(/the pull of .*9\.9\.9 failed: .*(not found|manifest unknown)/i);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const noRegistry = await expectJsonError(await pull({ reference: `127.0.0.1:${closedPort}/scan/app:1` }), 500);
    expect(noRegistry.details).toEqual({ code: 'failed' });
    expect(noRegistry.error).toContain(`127.0.0.1:${closedPort}`);

    // A registry that answers its ping and never the manifest: the agent answers at its bound, and
    // answers the next request at once. (The Engine goes on waiting for that manifest on its own:
    // dockerd does not cancel a pull whose client left, measured here at 40 s.)
    const asked: string[] = [];
    const stalled = createHttpServer((request, response) => {
      asked.push(`${request.method} ${request.url}`);
      if (request.url === '/v2/')
        response
          .writeHead(200, { 'content-type': 'application/json', 'docker-distribution-api-version': 'registry/2.0' })
          .end('{}');
    });
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    try {
      const port = (stalled.address() as { port: number }).port;
      const started = Date.now();
      const late = await expectJsonError(
        await pull({ reference: `127.0.0.1:${port}/scan/app:1`, timeoutMs: 2_000 }),
        500,
      );
      const elapsed = Date.now() - started;
      expect(late.details).toEqual({ code: 'failed' });
      expect(late.error).toContain('did not finish within 2000 ms');
      expect(elapsed).toBeGreaterThanOrEqual(2_000);
      expect(elapsed).toBeLessThan(6_000);
      expect(asked).toContain('HEAD /v2/scan/app/manifests/1');
      await expectJsonError(await pull({ reference: bed.ref('9.9.9') }), 500);
    } finally {
      stalled.closeAllConnections();
      await new Promise((resolve) => stalled.close(resolve));
    }
  });
});
