import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import type { AuditRecord } from '../../../shared/schemas/audit-entry';
import type { Container } from '../../../shared/schemas/container';
import type { GroupPolicy } from '../../../shared/schemas/group-policy';
import type { Rollout } from '../../../shared/schemas/rollout';
import type { UpdateOperation } from '../../../shared/update-engine';
import { containerRecord } from '../../../test/support/container-fixture';
import { createRolloutService } from './rollout-service';

// The rollout service's state machine over an update service whose operations the test ends by hand:
// what a restart reads back, pause, resume, abort and the refusals. The waves on real dockerds and
// agents: test/integration/rollouts-e2e.test.ts.

const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });

const host = (agent: string): Container =>
  containerRecord({
    id: `${agent}-web`.padEnd(64, '0'),
    name: 'web',
    agent,
    updateAvailable: true,
    updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0', semverDiff: 'major' },
    result: { tag: '2.0.0' },
  });

function setup(storage = createStorage(), policy?: GroupPolicy) {
  const containers = ['a', 'b', 'c'].map(host);
  const operations = new Map<string, UpdateOperation>();
  const audit: AuditRecord[] = [];
  const events: { type: string; state: string }[] = [];
  const service = createRolloutService({
    storage,
    logger,
    now: Date.now,
    audit: {
      append: async (record) => {
        audit.push(record);
        return { ...record, id: '', timestamp: '' };
      },
    },
    publish: (type, data) => events.push({ type, state: (data as Rollout).state }),
    containers: { all: () => containers, get: (id) => containers.find((c) => c.id === id) },
    settings: { get: () => ({ updateMode: 'manual', approvalRequired: false }) },
    policies: { get: (scope) => (scope === 'agent' ? policy : undefined) },
    updates: {
      requestUpdate: async (containerId) => {
        const operation = { id: `op-${containerId.slice(0, 1)}`, status: 'queued' } as UpdateOperation;
        operations.set(operation.id, operation);
        return operation;
      },
      get: (id) => operations.get(id),
    },
    pollMs: 5,
  });
  const end = (agent: string, status: UpdateOperation['status'], rollbackReason?: string) =>
    operations.set(`op-${agent}`, {
      id: `op-${agent}`,
      status,
      ...(rollbackReason && { rollbackReason }),
    } as UpdateOperation);
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(check()).toBe(true);
  };
  return { storage, service, containers, operations, audit, events, end, until };
}

describe('the rollout service', () => {
  it('reads a rollout that was running when the hub stopped back as interrupted, audited, and resumes it from its wave', async () => {
    const first = setup();
    const started = await first.service.start({ image: 'web' }, 'alice');
    await first.until(() => first.operations.has('op-a'));
    first.service.stop();

    const second = setup(first.storage);
    await second.service.load();
    const interrupted = second.service.get(started.id) as Rollout;
    expect(interrupted.state).toBe('interrupted');
    expect(interrupted.hosts[0]).toMatchObject({ host: 'a', state: 'updating' });
    expect(second.audit.map((entry) => entry.status)).toEqual(['interrupted']);
    await expect(second.service.pause(started.id, 'bob')).rejects.toMatchObject({ status: 409 });

    // The canary's operation (recovered by the update service) is followed, not requested again.
    second.end('a', 'succeeded');
    second.operations.set('op-a', { id: 'op-a', status: 'succeeded' } as UpdateOperation);
    await second.service.resume(started.id, 'bob');
    await second.until(() => second.operations.has('op-b'));
    second.end('b', 'succeeded');
    await second.until(() => second.operations.has('op-c'));
    second.end('c', 'succeeded');
    await second.service.idle();
    expect(second.service.get(started.id)?.state).toBe('completed');
  });

  it('halts at a failed wave with its host and reason; abort leaves the hosts after the wave untouched', async () => {
    const bed = setup();
    const halting = await bed.service.start({ image: 'web' }, 'alice');
    expect(halting.waves).toBe(3);
    await bed.until(() => bed.operations.has('op-a'));
    bed.end('a', 'succeeded');
    await bed.until(() => bed.operations.has('op-b'));
    bed.end('b', 'rolled-back', 'the new container is unhealthy');
    await bed.service.idle();
    expect(bed.service.get(halting.id)).toMatchObject({
      state: 'halted',
      failure: { host: 'b', wave: 1, containerName: 'web', reason: 'rolled back: the new container is unhealthy' },
    });
    expect(bed.service.get(halting.id)?.hosts.map((one) => one.state)).toEqual(['succeeded', 'failed', 'untouched']);
    expect(bed.operations.has('op-c')).toBe(false);

    const other = setup();
    const aborting = await other.service.start({ image: 'web' }, 'alice');
    await other.until(() => other.operations.has('op-a'));
    await expect(other.service.start({ image: 'web' }, 'alice')).rejects.toMatchObject({
      status: 409,
    });
    const aborted = await other.service.abort(aborting.id, 'carol');
    expect(aborted.hosts.map((one) => one.state)).toEqual(['updating', 'untouched', 'untouched']);
    other.end('a', 'succeeded');
    await other.service.idle();
    expect(other.service.get(aborting.id)).toMatchObject({ state: 'aborted', by: 'carol' });
    expect(other.service.get(aborting.id)?.hosts.map((one) => one.state)).toEqual([
      'succeeded',
      'untouched',
      'untouched',
    ]);
    expect(other.operations.has('op-b')).toBe(false);
    await expect(other.service.resume(aborting.id, 'carol')).rejects.toMatchObject({ status: 409 });
    expect(other.events.at(-1)).toEqual({ type: 'dd:rollout-updated', state: 'aborted' });
  });

  it('starts from the auto-update policy once per candidate; hosts found later join the waves not started yet', async () => {
    const policy = {
      scope: 'agent',
      name: 'a',
      rollout: { waveSize: 2, pauseSeconds: 0, automatic: true },
      createdAt: '',
      updatedAt: '',
    } as GroupPolicy;
    const bed = setup(createStorage(), policy);
    const [a, b, c] = bed.containers as [Container, Container, Container];
    // Only a's watch has found the candidate so far.
    b.updateAvailable = false;
    c.updateAvailable = false;
    expect(bed.service.rollsOutAutomatically(a)).toBe(true);
    expect(await bed.service.startAutomatic(a)).toBe(true);
    const [started] = bed.service.list() as [Rollout];
    expect(started).toMatchObject({ origin: 'auto', by: 'auto-update', waves: 1 });
    expect(started.hosts.map((one) => one.host)).toEqual(['a']);
    // The canary is under way when b and c are found: they join wave 1 together (two hosts a wave).
    await bed.until(() => bed.operations.has('op-a'));
    b.updateAvailable = true;
    c.updateAvailable = true;
    await bed.service.startAutomatic(b);
    await bed.service.startAutomatic(c);
    await bed.service.startAutomatic(a); // its host's wave has started: nothing changes
    expect(bed.service.get(started.id)?.hosts.map((one) => [one.host, one.wave, one.containers.length])).toEqual([
      ['a', 0, 1],
      ['b', 1, 1],
      ['c', 1, 1],
    ]);
    bed.end('a', 'succeeded');
    await bed.until(() => bed.operations.has('op-c'));
    bed.end('b', 'succeeded');
    bed.end('c', 'succeeded');
    await bed.service.idle();
    expect(bed.service.get(started.id)?.state).toBe('completed');
    // Once per candidate: no second rollout for it.
    expect(await bed.service.startAutomatic(a)).toBe(true);
    expect(bed.service.list()).toHaveLength(1);
  });
});
