/**
 * dd.hook.pre / dd.hook.post of an edge agent's container (docs/updates.md "Hooks"), end to end on real
 * components: the hub (with its own DD_HOOKS_ENABLED=true, which must not matter to the agent), a
 * real agent process (`npm run agent`) on its own dockerd, and a plain registry holding 1.0.0 and
 * 2.0.0. The hooks run on the agent's host only under the agent's own DD_HOOKS_ENABLED; the hub
 * audits the outcomes the agent reports, once each.
 */
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/schemas/audit-entry';
import type { AgentProcess } from '../support/edge-agent-process';
import {
  type EdgeUpdateBed,
  edgeUpdateApi,
  runApp as runBedApp,
  spawnBedAgent,
  startEdgeUpdateBed,
  until,
} from '../support/edge-update-bed';
import { createServerHub, type HubClient } from '../support/hub-harness';
import type { TestRegistry } from '../support/registry/start-registry';

const AGENT = 'edge-hooks';

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe("hooks of an edge agent's containers, run on the agent's host under its own DD_HOOKS_ENABLED", () => {
  let bed: EdgeUpdateBed;
  let markers: string;
  let registry: TestRegistry;
  let docker: Docker;
  let hub: HubClient;
  let agent: AgentProcess | undefined;

  const { json, pending, requestUpdate, settled } = edgeUpdateApi((path, init) => hub.request(path, init), AGENT);
  const audit = async (action: string, containerName: string) =>
    (await json<{ data: AuditEntry[] }>(`/api/v1/audit?actions=${action}&limit=200`)).data.filter(
      (entry) => entry.containerName === containerName,
    );
  /** Every hook-* entry of a container, once the hub has written at least `count` of them. */
  const hookAudit = (containerName: string, count: number) =>
    until(async () => {
      const entries = (
        await Promise.all(
          ['hook-pre-success', 'hook-pre-failed', 'hook-post-success', 'hook-post-failed'].map((a) =>
            audit(a, containerName),
          ),
        )
      ).flat();
      return entries.length >= count ? entries : undefined;
    }, `${count} hook audit entries of ${containerName}`);

  const startAgent = (env: Record<string, string>) => spawnBedAgent(bed, hub.url as string, env);
  /** 1.0.0 and 2.0.0 of `hooks/<name>` published, 1.0.0 running with these hook labels. */
  const runApp = (name: string, labels: Record<string, string>) =>
    runBedApp(bed, name, `hooks/${name}`, { from: 'http', to: 'http' }, labels);

  /** Waits for the hub to list 2.0.0 for the container, asks for the update, answers the settled operation. */
  const update = async (name: string) => settled(await requestUpdate(await pending(name)));

  const containersNamed = async (name: string) =>
    (await docker.listContainers({ all: true })).filter((c) =>
      c.Names.some((n) => n === `/${name}` || n.startsWith(`/${name}-old-`)),
    );

  beforeAll(async () => {
    bed = await startEdgeUpdateBed(AGENT);
    ({ docker, registry } = bed);
    markers = join(bed.dir, 'markers');
    await mkdir(markers);
    hub = await createServerHub({
      DD_EDGE_AUTHORIZED_KEYS: bed.authorizedKeys,
      DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '5',
      // The hub's own switch: it must not turn on hooks of an agent's host.
      DD_HOOKS_ENABLED: 'true',
    });
    agent = await startAgent({ DD_HOOKS_ENABLED: 'true', DD_HOOKS_TIMEOUT: '20' });
  }, 180_000);

  afterAll(async () => {
    await agent?.kill('SIGTERM');
    await hub?.close();
    await bed?.stop();
  }, 60_000);

  it('runs dd.hook.pre before and dd.hook.post after the update on the agent host; the hub audits each once', async () => {
    const oldId = await runApp('hooked', {
      'dd.hook.pre': `echo "$DD_HOOK $DD_CONTAINER_NAME $DD_FROM_VERSION $DD_TO_VERSION" > ${markers}/pre; env > ${markers}/pre-env`,
      'dd.hook.post': `echo "$DD_HOOK $DD_TO_VERSION $DD_NEW_CONTAINER_ID" > ${markers}/post`,
    });
    const operation = await update('hooked');
    expect(operation).toMatchObject({
      status: 'succeeded',
      phase: 'succeeded',
      agent: AGENT,
      hooks: { pre: { status: 'success' }, post: { status: 'success' } },
    });
    expect((await readFile(join(markers, 'pre'), 'utf8')).trim()).toBe('pre hooked 1.0.0 2.0.0');
    expect((await readFile(join(markers, 'post'), 'utf8')).trim()).toBe(`post 2.0.0 ${operation.newContainerId}`);
    // The agent's own variables (its socket, its hook switch) never reach a hook.
    const env = await readFile(join(markers, 'pre-env'), 'utf8');
    expect(env).not.toContain('DD_WATCHER_LOCAL_SOCKET');
    expect(env).not.toContain('DD_HOOKS_ENABLED');
    const running = await containersNamed('hooked');
    expect(running.map((c) => [c.Id, c.Image])).toEqual([
      [operation.newContainerId, `${registry.host}/hooks/hooked:2.0.0`],
    ]);
    expect(running[0]?.Id).not.toBe(oldId);
    const entries = await hookAudit('hooked', 2);
    expect(entries.map((entry) => [entry.action, entry.status, entry.details])).toEqual(
      expect.arrayContaining([
        ['hook-pre-success', 'success', `operation ${operation.id}`],
        ['hook-post-success', 'success', `operation ${operation.id}`],
      ]),
    );
    expect(entries).toHaveLength(2);
    expect(entries.find((entry) => entry.action === 'hook-pre-success')).toMatchObject({
      fromVersion: '1.0.0',
      toVersion: '2.0.0',
      containerImage: `${registry.host}/hooks/hooked:2.0.0`,
    });
  }, 180_000);

  it('a failing pre hook ends the update failed in prepare and leaves the container as it was', async () => {
    const oldId = await runApp('refused', {
      'dd.hook.pre': 'echo refusing >&2; exit 7',
      'dd.hook.post': `touch ${markers}/refused-post`,
    });
    const operation = await update('refused');
    expect(operation).toMatchObject({
      status: 'failed',
      phase: 'prepare',
      lastError: 'the pre-update hook (dd.hook.pre) exited with code 7: refusing; nothing was changed',
      hooks: { pre: { status: 'failed', detail: 'exited with code 7: refusing' } },
    });
    expect(operation.hooks?.post).toBeUndefined();
    expect(await exists(join(markers, 'refused-post'))).toBe(false);
    const containers = await containersNamed('refused');
    expect(containers.map((c) => [c.Id, c.Image, c.State])).toEqual([
      [oldId, `${registry.host}/hooks/refused:1.0.0`, 'running'],
    ]);
    const entries = await hookAudit('refused', 1);
    expect(entries.map((entry) => [entry.action, entry.status, entry.details])).toEqual([
      ['hook-pre-failed', 'failed', `operation ${operation.id}: exited with code 7: refusing`],
    ]);
  }, 180_000);

  it('an agent without DD_HOOKS_ENABLED runs no hook (the hub enabling its own changes nothing); the update proceeds', async () => {
    await agent?.kill('SIGTERM');
    agent = await startAgent({});
    const from = agent.logs.length;
    await runApp('unhooked', {
      'dd.hook.pre': `touch ${markers}/unhooked-pre`,
      'dd.hook.post': `touch ${markers}/unhooked-post`,
    });
    const operation = await update('unhooked');
    expect(operation).toMatchObject({ status: 'succeeded', phase: 'succeeded' });
    expect(operation.hooks).toBeUndefined();
    expect(await exists(join(markers, 'unhooked-pre'))).toBe(false);
    expect(await exists(join(markers, 'unhooked-post'))).toBe(false);
    const warning = await agent.waitForLog((line) => line.msg.includes('DD_HOOKS_ENABLED is not true'), 5_000, from);
    expect(warning.msg).toContain('unhooked');
    expect(
      (
        await Promise.all(
          ['hook-pre-success', 'hook-pre-failed', 'hook-post-success', 'hook-post-failed'].map((a) =>
            audit(a, 'unhooked'),
          ),
        )
      ).flat(),
    ).toEqual([]);
    // The restarted agent reported its journal again: the earlier outcomes are still audited once.
    expect(await audit('hook-pre-success', 'hooked')).toHaveLength(1);
    expect(await audit('hook-post-success', 'hooked')).toHaveLength(1);
    expect(await audit('hook-pre-failed', 'refused')).toHaveLength(1);
  }, 180_000);
});
