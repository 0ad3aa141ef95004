import type { Rollout, RolloutHost } from '../../../shared/schemas/rollout';
import type { UpdateOperation } from '../../../shared/update-engine';

/** What the outcome of a host reads of an operation: the update service's record of it. */
export type OperationOf = (
  operationId: string,
) => Pick<UpdateOperation, 'status' | 'rollbackReason' | 'lastError'> | undefined;

export const hostsOfWave = (rollout: Rollout, wave: number): RolloutHost[] =>
  rollout.hosts.filter((host) => host.wave === wave);

/** A host the rollout has started (some of its updates requested), ended or not. */
export const hostStarted = (host: RolloutHost): boolean =>
  host.state === 'updating' || host.state === 'succeeded' || host.state === 'failed';

/** A host whose updates are still to be requested or to end. */
export const hostOpen = (host: RolloutHost): boolean => host.state === 'pending' || host.state === 'updating';

/** A container of a started host whose update is still to be requested (a refusal is recorded as `failed`). */
export const unrequested = (entry: RolloutHost['containers'][number]): boolean =>
  entry.operationId === undefined && entry.status === undefined;

/** A rollout the wave runner carries on: running, or paused or aborted with a wave under way (it ends by itself). */
export function underWay(rollout: Rollout): boolean {
  if (rollout.state === 'running') return true;
  if (rollout.state !== 'paused' && rollout.state !== 'aborted') return false;
  return hostsOfWave(rollout, rollout.currentWave).some(hostStarted) && rollout.failure?.wave !== rollout.currentWave;
}

/**
 * A host of the current wave whose updates may be requested now: one started, or one pending in a
 * running rollout (or a paused one whose wave is under way: the wave ends, the next one waits).
 */
export function mayRequest(rollout: Rollout, host: RolloutHost): boolean {
  if (!host.containers.some(unrequested)) return false;
  if (host.state === 'updating') return true;
  if (host.state !== 'pending') return false;
  const waveStarted = hostsOfWave(rollout, rollout.currentWave).some(hostStarted);
  return rollout.state === 'running' || (rollout.state === 'paused' && waveStarted);
}

/**
 * A host under way, its containers' statuses read from their operations as they stand; `succeeded`
 * or `failed` (with `finishedAt` and the first failure) once each of them has ended.
 */
export function hostOutcome(host: RolloutHost, operationOf: OperationOf, at: string): RolloutHost {
  const containers = host.containers.map((entry) => {
    if (entry.operationId === undefined) return entry;
    const operation = operationOf(entry.operationId);
    if (!operation) return { ...entry, status: 'failed' as const, error: 'the operation is gone' };
    const error =
      operation.status === 'rolled-back'
        ? `rolled back: ${operation.rollbackReason ?? operation.lastError ?? 'unknown reason'}`
        : operation.status === 'failed'
          ? (operation.lastError ?? 'failed')
          : undefined;
    return { ...entry, status: operation.status, ...(error !== undefined && { error: error.slice(0, 300) }) };
  });
  const open = containers.some(
    (entry) => entry.status === undefined || entry.status === 'queued' || entry.status === 'in-progress',
  );
  if (open) return { ...host, containers };
  const failed = containers.find((entry) => entry.status !== 'succeeded');
  return {
    ...host,
    containers,
    state: failed ? 'failed' : 'succeeded',
    finishedAt: at,
    ...(failed && { error: `${failed.containerName}: ${failed.error ?? failed.status}` }),
  };
}

/**
 * The record once a wave has ended (no host of it pending or updating). A failed host halts the
 * rollout (an aborted one stays aborted): `failure` names it, the hosts still pending are left
 * `untouched`. Otherwise the next wave is current, after the pause when there is one; the last
 * wave of a running rollout completes it.
 */
export function endWave(
  rollout: Rollout,
  wave: number,
  now: number,
): { rollout: Rollout; failedHost: RolloutHost | undefined } {
  const at = new Date(now).toISOString();
  const failedHost = hostsOfWave(rollout, wave).find((host) => host.state === 'failed');
  if (failedHost) {
    const entry = failedHost.containers.find((candidate) => candidate.status !== 'succeeded');
    return {
      failedHost,
      rollout: {
        ...rollout,
        hosts: rollout.hosts.map((host) =>
          host.state === 'pending' ? { ...host, state: 'untouched' as const } : host,
        ),
        state: rollout.state === 'aborted' ? 'aborted' : 'halted',
        finishedAt: rollout.finishedAt ?? at,
        failure: {
          host: failedHost.host,
          wave,
          ...(entry && { containerName: entry.containerName }),
          ...(entry?.operationId !== undefined && { operationId: entry.operationId }),
          reason: entry?.error ?? failedHost.error ?? 'failed',
        },
      },
    };
  }
  const { nextWaveAt: _ended, ...rest } = rollout;
  const last = wave + 1 >= rollout.waves;
  const waits = !last && rollout.pauseSeconds > 0 && (rollout.state === 'running' || rollout.state === 'paused');
  return {
    failedHost: undefined,
    rollout: {
      ...rest,
      currentWave: wave + 1,
      ...(last && rollout.state === 'running' && { state: 'completed', finishedAt: at }),
      ...(waits && { nextWaveAt: new Date(now + rollout.pauseSeconds * 1000).toISOString() }),
    },
  };
}
