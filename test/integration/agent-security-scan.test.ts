/**
 * SBOMs and vulnerability scans of agents' containers (docs/security-scanning.md "Agents"), on real
 * components: the scan bed (a dockerd, a registry the images were pushed to with the docker CLI, a
 * container running the vulnerable 1.0.0), an edge agent as a real process (`npm run agent`) and a
 * listen-mode agent as a real process (`npm run agent -- --listen`) on that dockerd, and a hub in
 * process on a real socket for each, with no Docker host of its own. The hub reads the edge agent's image
 * through `image.export` (chunk frames under its credit), the listen agent's through
 * `GET /api/images/{id}/export`, and pulls the update candidate on the edge agent's host with
 * `image.pull`. A second hub with a local watcher on the same dockerd gives the reference SBOM.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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
import { OSV_FIXTURE, type ScanBed, startScanBed } from '../support/scan-bed';

const EDGE = 'edge-scan';
const LISTEN = 'nas';
const SECRET = 'listen-secret-for-the-scan-test';

type Json = Record<string, unknown>;
type Finding = { id: string; package: { name: string }; installedVersion: string };
type Scanned = Container & {
  security: { status: string; target: string; image: string; delta?: { fixed: { id: string }[] } };
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

  const json = async <T>(path: string, init?: RequestInit): Promise<T> =>
    (await hub.request(path, init)).json() as Promise<T>;
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

  it("scans the edge agent's update candidate, pulled on the agent's host, with the fixture's findings and delta", async () => {
    await until(
      async () =>
        (await json<{ database: { state: string } }>('/api/v1/containers/security/vulnerabilities')).database.state ===
        'ready'
          ? true
          : undefined,
      'the OSV database imported',
    );
    const pending = await edgeUpdateApi(hub.request, EDGE).pending('scanned');
    expect(pending.result?.tag).toBe('1.1.0');
    const before = await bed.dockerd.docker.listImages();
    expect(before.flatMap((image) => image.RepoTags ?? [])).not.toContain(bed.ref('1.1.0'));

    const response = await hub.request(`/api/v1/containers/${pending.id}/scan`, { method: 'POST' });
    expect(response.status, await response.clone().text()).toBe(200);
    const scanned = (await response.json()) as Scanned;
    expect(scanned.security).toMatchObject({ status: 'scanned', target: 'candidate', image: bed.ref('1.1.0') });
    expect(scanned.security.delta?.fixed.map((finding) => finding.id)).toEqual(['DSA-TEST-0001']);
    const findings = await json<{ vulnerabilities: Finding[] }>(`/api/v1/containers/${pending.id}/vulnerabilities`);
    expect(findings.vulnerabilities.map((f) => [f.id, f.package.name, f.installedVersion])).toEqual([
      ['DSA-TEST-0003', 'libepoch', '1:1.0-1'],
    ]);
    // The agent pulled the candidate on its own host to read it.
    const after = await bed.dockerd.docker.listImages();
    expect(after.flatMap((image) => image.RepoTags ?? [])).toContain(bed.ref('1.1.0'));
  });
});
