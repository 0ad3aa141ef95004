import { describe, expect, it } from 'vitest';
import type {
  SwarmEngine,
  SwarmService,
  SwarmServiceUpdate,
  SwarmUpdateStatus,
} from '../../../shared/docker/swarm-engine';
import type { UpdateOperation } from '../../../shared/update-engine';
import { recoverSwarmUpdate } from './recover-swarm-update';
import { runSwarmUpdate } from './swarm-update';

const OLD = 'registry.test/app:1.0.0@sha256:aaa';

/**
 * A manager whose UpdateStatus goes through `script` (one state per inspect after a ServiceUpdate);
 * a rollback=previous request goes through `rollbackScript`. Records what was sent.
 */
function fakeManager(script: string[], rollbackScript: string[] = ['rollback_started', 'rollback_completed']) {
  const sent: SwarmServiceUpdate[] = [];
  let version = 10;
  let steps: SwarmUpdateStatus[] = [];
  let status: SwarmUpdateStatus | undefined = { State: 'completed', StartedAt: 't0', Message: 'update completed' };
  let spec: SwarmService['Spec'] = {
    Name: 'web',
    TaskTemplate: { ContainerSpec: { Image: OLD, Env: ['A=1'] } },
    Mode: { Replicated: { Replicas: 2 } },
    UpdateConfig: { Parallelism: 1, FailureAction: 'pause' },
  };
  let previous: SwarmService['Spec'] | undefined = { ...spec };
  const engine: SwarmEngine = {
    endpoint: 'unix:///fake.sock',
    listServices: async () => [],
    async inspectService(id) {
      if (id !== 'svc1') return undefined;
      const next = steps.shift();
      if (next) status = next;
      return {
        ID: 'svc1',
        Version: { Index: version },
        Spec: spec,
        ...(previous && { PreviousSpec: previous }),
        ...(status && { UpdateStatus: status }),
      };
    },
    async updateService(_id, update) {
      if (update.version !== version) throw new Error('update out of sequence');
      sent.push(update);
      version += 1;
      const startedAt = `t${version}`;
      if (update.rollback) {
        [spec, previous] = [previous ?? spec, spec];
        steps = rollbackScript.map((State) => ({ State, StartedAt: startedAt, Message: `${State} message` }));
      } else {
        [previous, spec] = [spec, update.spec];
        steps = script.map((State) => ({ State, StartedAt: startedAt, Message: `${State} message` }));
      }
    },
    listTasks: async () => [
      { ID: 'task-old', DesiredState: 'shutdown', Status: { State: 'shutdown', Timestamp: '1' } },
      {
        ID: 'task-failed',
        DesiredState: 'shutdown',
        Status: { State: 'failed', Err: 'unhealthy container', Timestamp: '3' },
      },
    ],
    close: async () => undefined,
  };
  return { engine, sent, spec: () => spec };
}

function operation(fields: Partial<UpdateOperation> = {}): UpdateOperation {
  return {
    id: 'op1',
    kind: 'update',
    source: 'api',
    containerName: 'web',
    containerId: 'svc1',
    watcher: 'sw',
    status: 'queued',
    phase: 'prepare',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    targetImage: 'registry.test/app:2.0.0',
    ...fields,
  };
}

async function run(manager: ReturnType<typeof fakeManager>, op = operation(), signal = new AbortController().signal) {
  const phases: string[] = [];
  const settled = await runSwarmUpdate(
    op,
    { auth: undefined, healthTimeoutMs: 60_000 },
    {
      engine: manager.engine,
      journal: { save: async (saved) => void phases.push(`${saved.status}/${saved.phase}`) },
      now: () => Date.now(),
      pollMs: 1,
    },
    signal,
  );
  return { settled, phases: [...new Set(phases)] };
}

describe('runSwarmUpdate', () => {
  it('sends the new image with the rest of the spec at its version, and follows it to completed', async () => {
    const manager = fakeManager(['updating', 'updating', 'completed']);
    const { settled, phases } = await run(manager);
    expect(settled).toMatchObject({ status: 'succeeded', phase: 'succeeded', oldImage: 'registry.test/app:1.0.0' });
    expect(manager.sent).toHaveLength(1);
    expect(manager.sent[0]).toMatchObject({ version: 10 });
    expect(manager.sent[0]).not.toHaveProperty('rollback');
    expect(manager.spec()).toMatchObject({
      UpdateConfig: { Parallelism: 1, FailureAction: 'pause' },
      TaskTemplate: { ContainerSpec: { Image: 'registry.test/app:2.0.0', Env: ['A=1'] } },
    });
    expect(phases).toEqual([
      'in-progress/prepare',
      'in-progress/new-started',
      'in-progress/health-gate',
      'succeeded/succeeded',
    ]);
  });

  it('rolls a paused update back with rollback=previous and ends rolled back, saying why', async () => {
    const manager = fakeManager(['updating', 'paused']);
    const { settled, phases } = await run(manager);
    expect(manager.sent.map((update) => update.rollback)).toEqual([undefined, 'previous']);
    expect(manager.sent[1]?.version).toBe(11);
    expect(manager.spec().TaskTemplate.ContainerSpec?.Image).toBe(OLD);
    expect(settled).toMatchObject({ status: 'rolled-back', phase: 'rolled-back' });
    expect(settled.rollbackReason).toBe('paused message; task task-failed: unhealthy container');
    expect(phases).toContain('in-progress/rollback-started');
  });

  it('ends rolled back when the manager rolled back by itself (FailureAction rollback), without asking again', async () => {
    const manager = fakeManager(['updating', 'rollback_started', 'rollback_completed']);
    const { settled } = await run(manager);
    expect(manager.sent).toHaveLength(1);
    expect(settled).toMatchObject({ status: 'rolled-back', phase: 'rolled-back' });
    expect(settled.rollbackReason).toMatch(/^rollback_started message/);
  });

  it('a rollback operation is rollback=previous alone, and succeeds at rollback_completed', async () => {
    const manager = fakeManager([]);
    const { settled } = await run(manager, operation({ kind: 'rollback', source: 'rollback' }));
    expect(manager.sent.map((update) => update.rollback)).toEqual(['previous']);
    expect(settled).toMatchObject({ kind: 'rollback', status: 'succeeded', phase: 'succeeded' });
  });

  it('changes nothing for a gone service, a refused ServiceUpdate, or an update already under way', async () => {
    const gone = fakeManager([]);
    expect((await run(gone, operation({ containerId: 'nope' }))).settled).toMatchObject({
      status: 'failed',
      phase: 'prepare',
      lastError: 'the service is gone; nothing was changed',
    });
    const refused = fakeManager([]);
    refused.engine.updateService = async () => {
      throw new Error('rpc error: update out of sequence');
    };
    expect((await run(refused)).settled).toMatchObject({ status: 'failed', phase: 'prepare' });
    const busy = fakeManager([]);
    const inspect = busy.engine.inspectService;
    busy.engine.inspectService = async (id) => {
      const service = await inspect(id);
      return service && { ...service, UpdateStatus: { State: 'updating', StartedAt: 'x' } };
    };
    expect((await run(busy)).settled.lastError).toMatch(/already updating/);
  });

  it('a cancel while the manager updates rolls the service back', async () => {
    const manager = fakeManager(Array(1000).fill('updating'));
    const controller = new AbortController();
    const running = run(manager, operation(), controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort('cancelled by alice');
    const { settled } = await running;
    expect(manager.sent.map((update) => update.rollback)).toEqual([undefined, 'previous']);
    expect(settled).toMatchObject({
      status: 'rolled-back',
      rollbackReason: expect.stringMatching(/^cancelled by alice/),
    });
  });
});

describe('runSwarmUpdate when the hub stops', () => {
  it('leaves the manager to finish alone, the operation in progress for the next start', async () => {
    const manager = fakeManager(Array(1000).fill('updating'));
    const controller = new AbortController();
    const settled = runSwarmUpdate(
      operation(),
      { auth: undefined, healthTimeoutMs: 60_000 },
      {
        engine: manager.engine,
        journal: { save: async () => undefined },
        now: () => Date.now(),
        pollMs: 1,
        cancelledByUser: () => false,
      },
      controller.signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort('the hub is stopping');
    expect(await settled).toMatchObject({ status: 'in-progress' });
    expect(manager.sent).toHaveLength(1);
  });
});

describe('recoverSwarmUpdate', () => {
  const deps = (manager: ReturnType<typeof fakeManager>) => ({
    engine: manager.engine,
    journal: { save: async () => undefined },
    now: () => Date.now(),
    pollMs: 1,
  });
  const plan = { auth: undefined, healthTimeoutMs: 60_000 };

  it('an update the manager completed while the hub was down succeeds; one never sent changed nothing', async () => {
    const manager = fakeManager(['updating', 'completed']);
    await run(manager);
    const recovered = await recoverSwarmUpdate(
      operation({ status: 'in-progress', phase: 'new-started' }),
      plan,
      deps(manager),
    );
    expect(recovered).toMatchObject({ status: 'succeeded', phase: 'succeeded' });

    const untouched = fakeManager([]);
    expect(await recoverSwarmUpdate(operation({ status: 'in-progress' }), plan, deps(untouched))).toMatchObject({
      status: 'failed',
      phase: 'prepare',
      lastError: 'the hub stopped before its ServiceUpdate; nothing was changed',
    });
  });
});
