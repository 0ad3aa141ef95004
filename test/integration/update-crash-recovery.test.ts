/**
 * The hub killed (SIGKILL) in every phase of an update, on real components: a hub process pauses
 * its update run right after journalling the phase, the test kills it, and the hub as `npm start`
 * runs it (hub/src/entry/node.ts) starts on the same storage. It must settle the operation with the
 * container running (old or new, never neither) and no `-old-` container left.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPORARY_NAME, type UpdateOperation, type UpdateOperationPhase } from '../../shared/update-engine';
import { containerNames, localUpdateHubEnv } from '../support/docker/local-update-hub';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { type AppKind, publishApp, pullApp } from '../support/docker/update-images';
import { startHubProcess } from '../support/hub-process';
import { startPausingHub } from '../support/pausing-hub-process';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const SETTLED = ['succeeded', 'rolled-back', 'failed'];

interface Case {
  phase: UpdateOperationPhase;
  /** The image pair: the health-gate phases need a healthcheck, rollback-started a failing one. */
  from: AppKind;
  to: AppKind;
  outcome: UpdateOperation['status'];
  runs: 'old' | 'new';
  /** What Docker shows at the moment of the kill, proving the run was cut mid-way. */
  duringCrash: (names: string[], name: string) => void;
}

const hasTemporary = (names: string[], name: string) => names.some((n) => n.startsWith(`${name}-old-`));
const CASES: Case[] = [
  {
    phase: 'prepare',
    from: 'http',
    to: 'http',
    outcome: 'failed',
    runs: 'old',
    duringCrash: (names, name) => expect(hasTemporary(names, name)).toBe(false),
  },
  {
    phase: 'renamed',
    from: 'http',
    to: 'http',
    outcome: 'rolled-back',
    runs: 'old',
    duringCrash: (names, name) => expect(names).not.toContain(name),
  },
  {
    phase: 'new-created',
    from: 'http',
    to: 'http',
    outcome: 'rolled-back',
    runs: 'old',
    duringCrash: (names, name) => expect(hasTemporary(names, name) && names.includes(name)).toBe(true),
  },
  {
    phase: 'old-stopped',
    from: 'http',
    to: 'http',
    outcome: 'rolled-back',
    runs: 'old',
    duringCrash: (names, name) => expect(hasTemporary(names, name)).toBe(true),
  },
  {
    phase: 'new-started',
    from: 'http',
    to: 'http',
    outcome: 'rolled-back',
    runs: 'old',
    duringCrash: (names, name) => expect(hasTemporary(names, name)).toBe(true),
  },
  {
    phase: 'health-gate',
    from: 'healthy',
    to: 'healthy',
    outcome: 'rolled-back',
    runs: 'old',
    duringCrash: (names, name) => expect(hasTemporary(names, name)).toBe(true),
  },
  {
    phase: 'health-gate-passed',
    from: 'healthy',
    to: 'healthy',
    outcome: 'succeeded',
    runs: 'new',
    duringCrash: (names, name) => expect(hasTemporary(names, name)).toBe(true),
  },
  {
    phase: 'rollback-started',
    from: 'healthy',
    to: 'unhealthy',
    outcome: 'rolled-back',
    runs: 'old',
    duringCrash: (names, name) => expect(hasTemporary(names, name)).toBe(true),
  },
];

describe('an update whose hub is killed in any phase is settled by the next start', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let docker: Docker;
  const dirs: string[] = [];

  const names = () => containerNames(docker);
  const hubEnv = (storePath: string) => localUpdateHubEnv(dockerd.socketPath, storePath);

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    docker = dockerd.docker;
    // One repository per image pair: crash/<from>-<to> with 1.0.0 and 2.0.0.
    for (const { from, to } of new Map(CASES.map((c) => [`${c.from}-${c.to}`, c])).values()) {
      await publishApp(dockerd, registry, { repository: `crash/${from}-${to}`, tag: '1.0.0', kind: from });
      await publishApp(dockerd, registry, { repository: `crash/${from}-${to}`, tag: '2.0.0', kind: to });
    }
  }, 120_000);

  afterAll(async () => {
    await dockerd?.stop();
    await registry?.stop();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('re-queues an operation that was still queued when the hub was killed, and runs it after the recovery', async () => {
    const storePath = await mkdtemp(join(tmpdir(), 'update-crash-'));
    dirs.push(storePath);
    const from = `${registry.host}/crash/http-http:1.0.0`;
    await pullApp(dockerd, from);
    const ids: string[] = [];
    for (const name of ['queue-a', 'queue-b']) {
      const created = await docker.createContainer({
        name,
        Image: from,
        Labels: { 'dd.watch': 'true', 'com.docker.compose.project': 'queued' },
        HostConfig: { Init: true, NetworkMode: 'none' },
      });
      await created.start();
      ids.push(created.id);
    }
    const pausing = await startPausingHub(hubEnv(storePath), 'old-stopped');
    const operations: string[] = [];
    try {
      expect((await fetch(`${pausing.url}/api/v1/containers/watch`, { method: 'POST' })).status).toBe(200);
      for (const id of ids) {
        const response = await fetch(`${pausing.url}/api/v1/containers/${id}/update`, { method: 'POST' });
        expect(response.status).toBe(202);
        operations.push(((await response.json()) as { operationId: string }).operationId);
      }
      expect(await pausing.paused).toBe(operations[0]);
      const queued = (await (
        await fetch(`${pausing.url}/api/v1/update-operations/${operations[1]}`)
      ).json()) as UpdateOperation;
      expect(queued.status).toBe('queued');
    } finally {
      pausing.child.kill('SIGKILL');
      await pausing.exited;
    }
    const hub = await startHubProcess(hubEnv(storePath));
    try {
      const outcome = async (id: string | undefined) =>
        ((await (await fetch(`${hub.url}/api/v1/update-operations/${id}`)).json()) as UpdateOperation).status;
      const deadline = Date.now() + 60_000;
      while (
        Date.now() < deadline &&
        (!SETTLED.includes(await outcome(operations[0])) || !SETTLED.includes(await outcome(operations[1])))
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect([await outcome(operations[0]), await outcome(operations[1])]).toEqual(['rolled-back', 'succeeded']);
      expect((await docker.getContainer('queue-a').inspect()).Id).toBe(ids[0]);
      expect((await docker.getContainer('queue-b').inspect()).Config.Image).toBe(
        `${registry.host}/crash/http-http:2.0.0`,
      );
      expect((await names()).filter((n) => TEMPORARY_NAME.test(n))).toEqual([]);
    } finally {
      await hub.kill('SIGTERM');
    }
  }, 120_000);

  for (const [index, testCase] of CASES.entries()) {
    it(`killed in ${testCase.phase}: ${testCase.outcome}, the ${testCase.runs} container runs, nothing left over`, async () => {
      const name = `svc${index}`;
      const storePath = await mkdtemp(join(tmpdir(), 'update-crash-'));
      dirs.push(storePath);
      const from = `${registry.host}/crash/${testCase.from}-${testCase.to}:1.0.0`;
      await pullApp(dockerd, from);
      const created = await docker.createContainer({
        name,
        Image: from,
        Labels: { 'dd.watch': 'true' },
        StopTimeout: 2,
        HostConfig: {
          Init: true,
          NetworkMode: 'none',
          RestartPolicy: { Name: 'unless-stopped', MaximumRetryCount: 0 },
        },
      });
      await created.start();

      const pausing = await startPausingHub(hubEnv(storePath), testCase.phase);
      let operationId: string;
      try {
        expect((await fetch(`${pausing.url}/api/v1/containers/watch`, { method: 'POST' })).status).toBe(200);
        const response = await fetch(`${pausing.url}/api/v1/containers/${created.id}/update`, { method: 'POST' });
        expect(response.status).toBe(202);
        operationId = ((await response.json()) as { operationId: string }).operationId;
        expect(await pausing.paused).toBe(operationId);
      } finally {
        pausing.child.kill('SIGKILL');
        await pausing.exited;
      }
      testCase.duringCrash(await names(), name);

      const hub = await startHubProcess(hubEnv(storePath));
      try {
        let settled: UpdateOperation | undefined;
        const deadline = Date.now() + 60_000;
        while (Date.now() < deadline) {
          const current = (await (
            await fetch(`${hub.url}/api/v1/update-operations/${operationId}`)
          ).json()) as UpdateOperation;
          if (SETTLED.includes(current.status)) {
            settled = current;
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(settled?.status).toBe(testCase.outcome);
        if (testCase.outcome === 'rolled-back')
          expect(settled?.rollbackReason).toMatch(/hub stopped during the phase|unhealthy/);
        const info = await docker.getContainer(name).inspect();
        expect(info.State.Running).toBe(true);
        expect(info.Id).toBe(testCase.runs === 'old' ? created.id : settled?.newContainerId);
        const left = await names();
        expect(left.filter((n) => n === name || n.startsWith(`${name}-`))).toEqual([name]);
        expect(left.filter((n) => TEMPORARY_NAME.test(n))).toEqual([]);
        // The outcome is announced as any other: update-applied or update-failed in the audit trail (written just after settling).
        const audited = async () => {
          const entries = (await (
            await fetch(`${hub.url}/api/v1/audit?actions=update-applied,update-failed&limit=50`)
          ).json()) as {
            data: { containerName: string; action: string }[];
          };
          return entries.data.find((entry) => entry.containerName === name)?.action;
        };
        let action = await audited();
        for (let tries = 0; action === undefined && tries < 50; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          action = await audited();
        }
        expect(action).toBe(testCase.outcome === 'succeeded' ? 'update-applied' : 'update-failed');
      } finally {
        await hub.kill('SIGTERM');
      }
    }, 120_000);
  }
});
