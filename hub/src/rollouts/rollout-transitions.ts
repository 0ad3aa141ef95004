import type { Logger } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import type { GroupPolicy } from '../../../shared/schemas/group-policy';
import { FINISHED_ROLLOUT_STATES, type Rollout, type RolloutStartBody } from '../../../shared/schemas/rollout';
import type { ContainerStore } from '../store/container-store';
import { withJoined } from './rollout-join';
import { planRollout, repositoryOf } from './rollout-plan';
import { type RolloutResult, refused, unknownRollout } from './rollout-refusal';
import type { RolloutStore } from './rollout-store';

export type RolloutShape = NonNullable<GroupPolicy['rollout']>;

export interface RolloutTransitionsDeps {
  store: RolloutStore;
  logger: Logger;
  now: () => number;
  containers: Pick<ContainerStore, 'all' | 'get'>;
  /** The wave runner: a rollout has something to do now. */
  wake: () => void;
}

/**
 * What people and the auto-update policy do to rollouts: start one (planned from the containers
 * pending now), let a host found later join it, pause, resume and abort. The waves themselves are
 * the wave runner's; these only change the stored record and wake it.
 */
export function createRolloutTransitions(deps: RolloutTransitionsDeps) {
  const { store } = deps;
  const iso = () => new Date(deps.now()).toISOString();

  const activeFor = (image: string, toVersion: string): Rollout | undefined =>
    store
      .list()
      .find(
        (rollout) =>
          rollout.image === image &&
          rollout.toVersion === toVersion &&
          !FINISHED_ROLLOUT_STATES.includes(rollout.state),
      );

  async function begin(
    body: RolloutStartBody,
    shape: RolloutShape | undefined,
    origin: Rollout['origin'],
    by: string,
  ): Promise<RolloutResult> {
    const waveSize = body.waveSize ?? shape?.waveSize ?? 1;
    const pauseSeconds = body.pauseSeconds ?? shape?.pauseSeconds ?? 0;
    const planned = planRollout(
      deps.containers.all(),
      { image: body.image, toVersion: body.toVersion, group: body.group },
      { canaryHost: body.canaryHost ?? shape?.canaryHost, waveSize },
    );
    if (!planned.ok) return planned;
    const { plan } = planned;
    const first = deps.containers.get(plan.hosts[0]?.containers[0]?.containerId ?? '');
    const image = first ? repositoryOf(first) : body.image;
    return store.exclusive(async (): Promise<RolloutResult> => {
      const active = activeFor(image, plan.toVersion);
      if (active)
        return refused({
          reason: 'rollout-active',
          message: 'A rollout of this image and candidate is under way',
          rolloutId: active.id,
        });
      const at = iso();
      const rollout: Rollout = {
        id: crypto.randomUUID(),
        image,
        toVersion: plan.toVersion,
        ...(body.group !== undefined && { group: body.group }),
        origin,
        state: 'running',
        waveSize,
        pauseSeconds,
        currentWave: 0,
        waves: plan.waves,
        hosts: plan.hosts,
        by,
        createdAt: at,
        updatedAt: at,
      };
      const waves = `canary ${plan.hosts[0]?.host}, then ${plan.waves - 1} wave(s) of ${waveSize} host(s)`;
      await store.add(rollout, { status: 'started', details: `by ${by}; ${waves}` });
      deps.wake();
      return { ok: true, rollout };
    });
  }

  /** A container found with the candidate after its rollout was planned joins it (rollout-join). */
  async function join(id: string, container: Container): Promise<void> {
    await store.change(id, (current) => {
      const next = withJoined(current, container);
      const added = next?.hosts.at(-1);
      if (next && next.hosts.length > current.hosts.length && added)
        deps.logger.info('a host joins a rollout', { rollout: id, host: added.host, wave: added.wave });
      return next;
    });
  }

  /**
   * Changes a rollout in a state that allows it, audited as `action` with `details` of the changed
   * record (and wakes the runner with `wake`); refuses an unknown one or another state.
   */
  async function transition(
    id: string,
    action: 'paused' | 'resumed' | 'aborted',
    allowed: (rollout: Rollout) => boolean,
    edit: (rollout: Rollout) => Rollout,
    details: (rollout: Rollout) => string,
    wake = false,
  ): Promise<RolloutResult> {
    const known = store.get(id);
    if (!known) return unknownRollout(id);
    let refusal: RolloutResult | undefined;
    const changed = await store.change(
      id,
      (current) => {
        if (allowed(current)) return edit(current);
        refusal = refused({
          reason: 'rollout-state',
          message: `A ${current.state} rollout cannot be ${action}`,
          state: current.state,
        });
        return undefined;
      },
      (rollout) => [{ status: action, details: details(rollout) }],
    );
    if (refusal) return refusal;
    if (!changed) return unknownRollout(id);
    if (wake) deps.wake();
    return { ok: true, rollout: changed };
  }

  return {
    begin,
    join,
    pause: (id: string, by: string) =>
      transition(
        id,
        'paused',
        (rollout) => rollout.state === 'running',
        (rollout) => ({ ...rollout, state: 'paused', by }),
        (rollout) => `by ${by} before wave ${rollout.currentWave}`,
      ),
    resume: (id: string, by: string) =>
      transition(
        id,
        'resumed',
        (rollout) => rollout.state === 'paused' || rollout.state === 'interrupted',
        (rollout) => {
          const { nextWaveAt: _pause, ...rest } = rollout;
          return { ...rest, state: 'running', by };
        },
        (rollout) => `by ${by} at wave ${rollout.currentWave}`,
        true,
      ),
    abort: (id: string, by: string) =>
      transition(
        id,
        'aborted',
        (rollout) => !FINISHED_ROLLOUT_STATES.includes(rollout.state),
        (rollout) => ({
          ...rollout,
          state: 'aborted',
          by,
          finishedAt: iso(),
          // A wave under way ends by itself (its operations are not cancelled); the hosts after it are left alone.
          hosts: rollout.hosts.map((host) =>
            host.state === 'pending' ? { ...host, state: 'untouched' as const } : host,
          ),
        }),
        (rollout) => `by ${by} at wave ${rollout.currentWave}`,
      ),
  };
}

export type RolloutTransitions = ReturnType<typeof createRolloutTransitions>;
