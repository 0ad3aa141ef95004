/**
 * The compose examples of deploy/ (docs/deploy.md), each started for real with Debian's
 * docker-compose (Compose v1) on a test dockerd, with the project's images built as a release
 * builds them. Images that cannot be pulled here are replaced through the examples' own image
 * variables by stand-ins built locally (test/support/docker/stand-ins/): a plain forwarder for the
 * socket proxy (its API filtering is not tested) and a TLS proxy that reads the Caddy labels as
 * caddy-docker-proxy does (ACME and Caddy itself are not tested).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { type ComposeProject, composeProject } from '../support/docker/compose-cli';
import { buildDockwatchImages, type DockwatchImages } from '../support/docker/dockwatch-images';
import { docker, freePort, inspect, socketGroup, waitForHttp } from '../support/docker/image-containers';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';

const DEPLOY = fileURLToPath(new URL('../../deploy', import.meta.url));
const STAND_INS = fileURLToPath(new URL('../support/docker/stand-ins', import.meta.url));
const DOMAIN = 'dockwatch.localhost';

describe('compose examples (deploy/)', () => {
  let dockerd: TestDockerd;
  let images: DockwatchImages;
  let scratch: string;
  let common: Record<string, string>;
  const projects: ComposeProject[] = [];

  /** A stand-in image: the node base image running one script of stand-ins/, with extra files. */
  async function standIn(tag: string, script: string, extra: Record<string, string> = {}) {
    const context = mkdtempSync(join(scratch, 'stand-in-'));
    cpSync(join(STAND_INS, script), join(context, 'stand-in.mjs'));
    for (const [name, source] of Object.entries(extra)) cpSync(source, join(context, name));
    const copies = Object.keys(extra).map((name) => `COPY ${name} /certs/${name}\n`);
    writeFileSync(
      join(context, 'Dockerfile'),
      `FROM ${images.base}\nCOPY stand-in.mjs /stand-in.mjs\n${copies.join('')}ENTRYPOINT ["node", "/stand-in.mjs"]\n`,
    );
    await docker(dockerd, ['build', '-t', tag, context]);
    return tag;
  }

  function project(name: string, example: string, variables: Record<string, string>, overrides: string[] = []) {
    const created = composeProject(dockerd, name, [join(DEPLOY, example, 'compose.yaml'), ...overrides], {
      ...common,
      ...variables,
    });
    projects.push(created);
    return created;
  }

  const containers = async (url: string, query = '') =>
    ((await (await fetch(`${url}/api/v1/containers${query}`)).json()) as { data: Container[] }).data;
  const listsNeighbour = async (response: Response) =>
    response.status === 200 &&
    ((await response.json()) as { data: Container[] }).data.some((c) => c.name === 'neighbour');

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'dockwatch-compose-'));
    dockerd = await startDockerd();
    images = await buildDockwatchImages(dockerd);
    common = {
      DOCKWATCH_HUB_IMAGE: images.hub,
      DOCKWATCH_AGENT_IMAGE: images.agent,
      DOCKER_SOCKET: dockerd.socketPath,
      DOCKER_GID: socketGroup(dockerd),
    };
    await importBusyboxImage(dockerd.docker, { repository: 'localhost/neighbour', tag: '1', cmd: ['sleep', '3600'] });
    await runContainer(dockerd.docker, { name: 'neighbour', image: 'localhost/neighbour:1' });
  }, 240_000);

  afterAll(async () => {
    for (const created of projects.reverse()) await created.down().catch(() => undefined);
    images?.cleanup();
    await dockerd?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }, 60_000);

  describe('hub alone, then an agent on "another host" dialling it', () => {
    let hubUrl: string;

    it('hub/: publishes the hub on loopback, watching the host’s containers through the mounted socket', async () => {
      const port = await freePort();
      hubUrl = `http://127.0.0.1:${port}`;
      await project('dwhub', 'hub', { DOCKWATCH_PUBLISH: `127.0.0.1:${port}` }).run(['up', '-d']);
      await waitForHttp(dockerd, 'dwhub_hub_1', `${hubUrl}/api/v1/containers`, listsNeighbour);
      expect((await inspect(dockerd, 'dwhub_hub_1')).Config.User).toBe('1000:1000');
    }, 60_000);

    it('agent/: makes its key with `run`, and once registered connects and reports its host', async () => {
      // "Another host": the agent's project joins the hub's network in place of the way between hosts.
      const override = join(scratch, 'agent-network.yaml');
      writeFileSync(
        override,
        'services:\n  agent:\n    networks: [hub]\nnetworks:\n  hub:\n    external: true\n    name: dwhub_default\n',
      );
      const agent = project('dwagent', 'agent', { DOCKWATCH_HUB: 'ws://hub:3000', DOCKWATCH_AGENT_NAME: 'far-away' }, [
        override,
      ]);
      const keygen = await agent.run(['run', '--rm', '-T', 'agent', 'keygen', '--key', '/app/key/agent.key', '--json']);
      const registration = JSON.parse(keygen.slice(keygen.indexOf('{'))) as { body: { publicKey: string } };
      const registered = await fetch(`${hubUrl}/api/v1/edge/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...registration.body, label: 'far-away' }),
      });
      expect(registered.status).toBe(201);
      await agent.run(['up', '-d']);
      await waitForHttp(dockerd, 'dwagent_agent_1', `${hubUrl}/api/v1/containers?agent=far-away`, async (response) =>
        ((await response.json()) as { data: Container[] }).data.some((c) => c.name === 'neighbour'),
      );
      const reported = await containers(`${hubUrl}`, '?agent=far-away');
      expect(reported.find((c) => c.name === 'neighbour')).toMatchObject({ agent: 'far-away' });
      await agent.run(['stop']);
      expect((await inspect(dockerd, 'dwagent_agent_1')).State.ExitCode).toBe(0);
    }, 90_000);
  });

  it('socket-proxy/: the hub reaches Docker only through the proxy, with no socket and no extra group', async () => {
    const image = await standIn('localhost/socket-proxy-stand-in:test', 'socket-proxy.mjs');
    const port = await freePort();
    await project('dwproxy', 'socket-proxy', {
      SOCKET_PROXY_IMAGE: image,
      DOCKWATCH_PUBLISH: `127.0.0.1:${port}`,
    }).run(['up', '-d']);
    await waitForHttp(dockerd, 'dwproxy_hub_1', `http://127.0.0.1:${port}/api/v1/containers`, listsNeighbour);
    const hub = await inspect(dockerd, 'dwproxy_hub_1');
    expect(hub.Mounts.map((mount) => mount.Destination)).toEqual(['/app/data']);
    expect(hub.HostConfig.GroupAdd ?? []).toEqual([]);
  }, 90_000);

  it('reverse-proxy/: the hub answers over HTTPS through the proxy its labels configure', async () => {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${DOMAIN}`,
        '-addext',
        `subjectAltName=DNS:${DOMAIN}`,
        '-keyout',
        join(scratch, 'key.pem'),
        '-out',
        join(scratch, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const image = await standIn('localhost/caddy-stand-in:test', 'tls-proxy.mjs', {
      'cert.pem': join(scratch, 'cert.pem'),
      'key.pem': join(scratch, 'key.pem'),
    });
    const [https, http] = [await freePort(), await freePort()];
    await project('dwtls', 'reverse-proxy', {
      CADDY_IMAGE: image,
      DOCKWATCH_DOMAIN: DOMAIN,
      HTTPS_PUBLISH: `127.0.0.1:${https}`,
      HTTP_PUBLISH: `127.0.0.1:${http}`,
    }).run(['up', '-d']);
    const ca = readFileSync(join(scratch, 'cert.pem'));
    const get = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port: https, path, servername: DOMAIN, headers: { host: DOMAIN }, ca },
          (res) => {
            let body = '';
            res.setEncoding('utf8').on('data', (chunk: string) => {
              body += chunk;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    const deadline = Date.now() + 30_000;
    let answer = { status: 0, body: '' };
    while (Date.now() < deadline) {
      answer = await get('/health').catch((error: Error) => ({ status: 0, body: error.message }));
      if (answer.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 'ok' });
    // Only the proxy publishes a port.
    expect(Object.keys((await inspect(dockerd, 'dwtls_hub_1')).HostConfig.PortBindings ?? {})).toEqual([]);
  }, 90_000);
});
