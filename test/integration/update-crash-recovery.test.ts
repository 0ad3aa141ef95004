/**
 * The hub killed (SIGKILL) in every phase of an update, on real components: a hub process pauses
 * its update run right after journalling the phase, the test kills it, and the hub as `npm start`
 * runs it (hub/src/entry/node.ts) starts on the same storage. It must settle the operation with the
 * container running (old or new, never neither) and no `-old-` container left.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPORARY_NAME, type UpdateOperation, type UpdateOperationPhase } from '../../shared/update-engine';
import {
  type LocalUpdateBed,
  operationOn,
  requestUpdate,
  settledOn,
  startLocalUpdateBed,
  watchNow,
} from '../support/docker/local-update-hub';
import { type AppKind, publishApp, pullApp } from '../support/docker/update-images';
import { startHubProcess } from '../support/hub-process';
import { startPausingHub } from '../support/pausing-hub-process';

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
  let bed: LocalUpdateBed;

  beforeAll(async () => {
    bed = await startLocalUpdateBed();
    // One repository per image pair: crash/<from>-<to> with 1.0.0 and 2.0.0.
    for (const { from, to } of new Map(CASES.map((c) => [`${c.from}-${c.to}`, c])).values()) {
      await publishApp(bed.dockerd, bed.registry, { repository: `crash/${from}-${to}`, tag: '1.0.0', kind: from });
      await publishApp(bed.dockerd, bed.registry, { repository: `crash/${from}-${to}`, tag: '2.0.0', kind: to });
    }
  }, 120_000);

  afterAll(() => bed?.stop());

  it('re-queues an operation that was still queued when the hub was killed, and runs it after the recovery', async () => {
    const storePath = await bed.newStore('update-crash-');
    const from = `${bed.registry.host}/crash/http-http:1.0.0`;
    await pullApp(bed.dockerd, from);
    const ids: string[] = [];
    for (const name of ['queue-a', 'queue-b']) {
      const created = await bed.docker.createContainer({
        name,
        Image: from,
        Labels: { 'dd.watch': 'true', 'com.docker.compose.project': 'queued' },
        NetworkDisabled: true,
        HostConfig: { Init: true, NetworkMode: 'none' },
      });
      await created.start();
      ids.push(created.id);
    }
    const pausing = await startPausingHub(bed.hubEnv(storePath), 'old-stopped');
    const operations: string[] = [];
    try {
      await watchNow(pausing.url);
      for (const id of ids) operations.push(await requestUpdate(pausing.url, id));
      expect(await pausing.paused).toBe(operations[0]);
      const queued = await operationOn(pausing.url, operations[1] as string);
      expect(queued.status).toBe('queued');
    } finally {
      pausing.child.kill('SIGKILL');
      await pausing.exited;
    }
    const hub = await startHubProcess(bed.hubEnv(storePath));
    try {
      const [first, second] = operations as [string, string];
      const settled = [await settledOn(hub.url, first), await settledOn(hub.url, second)];
      expect(settled.map((operation) => operation.status)).toEqual(['rolled-back', 'succeeded']);
      expect((await bed.docker.getContainer('queue-a').inspect()).Id).toBe(ids[0]);
      expect((await bed.docker.getContainer('queue-b').inspect()).Config.Image).toBe(
        `${bed.registry.host}/crash/http-http:2.0.0`,
      );
      expect((await bed.names()).filter((n) => TEMPORARY_NAME.test(n))).toEqual([]);
    } finally {
      await hub.kill('SIGTERM');
    }
  }, 120_000);

  for (const [index, testCase] of CASES.entries()) {
    it(`killed in ${testCase.phase}: ${testCase.outcome}, the ${testCase.runs} container runs, nothing left over`, async () => {
      const name = `svc${index}`;
      const storePath = await bed.newStore('update-crash-');
      const from = `${bed.registry.host}/crash/${testCase.from}-${testCase.to}:1.0.0`;
      await pullApp(bed.dockerd, from);
      const created = await bed.docker.createContainer({
        name,
        Image: from,
        Labels: { 'dd.watch': 'true' },
        StopTimeout: 2,
        NetworkDisabled: true,
        HostConfig: {
          Init: true,
          NetworkMode: 'none',
          RestartPolicy: { Name: 'unless-stopped', MaximumRetryCount: 0 },
        },
      });
      await created.start();

      const pausing = await startPausingHub(bed.hubEnv(storePath), testCase.phase);
      let operationId: string;
      try {
        await watchNow(pausing.url);
        operationId = await requestUpdate(pausing.url, created.id);
        expect(await pausing.paused).toBe(operationId);
      } finally {
        pausing.child.kill('SIGKILL');
        await pausing.exited;
      }
      testCase.duringCrash(await bed.names(), name);

      const hub = await startHubProcess(bed.hubEnv(storePath));
      try {
        const settled = await settledOn(hub.url, operationId);
        expect(settled.status).toBe(testCase.outcome);
        if (testCase.outcome === 'rolled-back')
          expect(settled.rollbackReason).toMatch(/hub stopped during the phase|unhealthy/);
        const info = await bed.docker.getContainer(name).inspect();
        expect(info.State.Running).toBe(true);
        expect(info.Id).toBe(testCase.runs === 'old' ? created.id : settled.newContainerId);
        const left = await bed.names();
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
