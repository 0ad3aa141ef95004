import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import type { Rollout, RolloutStartBody } from '../../../shared/schemas/rollout';
import type { Settings } from '../../../shared/schemas/settings';
import type { EventBus, Publish } from '../events/event-bus';
import { effectiveGroupPolicy } from '../policies/effective-group-policy';
import type { GroupPolicyStore } from '../policies/group-policy-store';
import type { Scheduler } from '../schedule/scheduler';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { UpdateService } from '../updates/update-service';
import { updateTargetOf } from '../updates/update-target';
import { repositoryOf } from './rollout-plan';
import type { RolloutResult } from './rollout-refusal';
import { createRolloutStore } from './rollout-store';
import { createRolloutTransitions, type RolloutShape } from './rollout-transitions';
import { createWaveRunner } from './wave-runner';

export interface RolloutServiceDeps {
  storage: Storage;
  logger: Logger;
  now: () => number;
  audit: Pick<AuditStore, 'append'>;
  publish: Publish;
  events: Pick<EventBus, 'subscribe'>;
  schedule: Pick<Scheduler, 'job'>;
  containers: Pick<ContainerStore, 'all' | 'get'>;
  settings: { get(): Pick<Settings, 'updateMode' | 'approvalRequired'> };
  policies: Pick<GroupPolicyStore, 'get'>;
  updates: Pick<UpdateService, 'requestUpdate' | 'get' | 'operationsOf' | 'unsettled'>;
  /** How often a wave under way is looked at besides when its operations end (tests). */
  recheckMs?: number | undefined;
}

/**
 * Staged rollouts (docs/group-policies.md "Staged rollouts"): the same image and candidate on many
 * hosts, updated through the update service host by host: a canary first, then waves, each one
 * waiting for its operations to end (the update engine's health gate decides "healthy"), halting at
 * the first wave that fails and leaving the remaining hosts untouched. The records are in storage
 * (rollout-store), the waves and pauses are a scheduler job (wave-runner), so a restarted hub or a
 * re-created Durable Object carries each rollout on where it was.
 */
export interface RolloutService {
  load(): Promise<void>;
  /** Carries the rollouts under way on from now (after the update service has started). */
  follow(): void;
  /** No wave goes further; what runs stays in storage for the next start. */
  stop(): Promise<void>;
  list(): Rollout[];
  get(id: string): Rollout | undefined;
  start(body: RolloutStartBody, by: string): Promise<RolloutResult>;
  /** The auto-update policy hands a container over when its policy rolls out automatically; true when a rollout has it. */
  startAutomatic(container: Container): Promise<boolean>;
  /** Whether the auto-update policy should leave this container to a rollout. */
  rollsOutAutomatically(container: Container): boolean;
  pause(id: string, by: string): Promise<RolloutResult>;
  resume(id: string, by: string): Promise<RolloutResult>;
  abort(id: string, by: string): Promise<RolloutResult>;
}

export function createRolloutService(deps: RolloutServiceDeps): RolloutService {
  const logger = deps.logger.child('rollouts');
  const store = createRolloutStore(deps);
  const runner = createWaveRunner({ ...deps, store, operationOf: (id) => deps.updates.get(id) });
  const transitions = createRolloutTransitions({ ...deps, store, wake: () => runner.wake() });

  const rolloutPolicyOf = (container: Container) =>
    effectiveGroupPolicy(container, deps.settings.get(), deps.policies).effective.rollout;

  return {
    load: () => store.load(),
    follow: () => runner.start(),
    stop: () => runner.stop(),
    list: () => store.list(),
    get: (id) => store.get(id),
    start(body, by) {
      const shape: RolloutShape | undefined =
        body.group === undefined ? undefined : deps.policies.get('group', body.group)?.rollout;
      return transitions.begin(body, shape, 'api', by);
    },
    rollsOutAutomatically: (container) => rolloutPolicyOf(container)?.value.automatic === true,
    async startAutomatic(container) {
      const policy = rolloutPolicyOf(container);
      const target = updateTargetOf(container);
      if (!policy?.value.automatic || !target) return false;
      const image = repositoryOf(container);
      // Once per candidate: a halted or aborted rollout is not started again by itself; a host whose
      // watch finds the candidate while one is under way joins it.
      const existing = store
        .list()
        .find((rollout) => rollout.image === image && rollout.toVersion === target.toVersion);
      if (existing) {
        await transitions.join(existing.id, container);
        return true;
      }
      const group = policy.source === 'group-policy' && container.group !== undefined && { group: container.group };
      const result = await transitions.begin(
        { image, toVersion: target.toVersion, ...group },
        policy.value,
        'auto',
        'auto-update',
      );
      if (result.ok) return true;
      if (result.refusal.reason === 'rollout-active') {
        await transitions.join(result.refusal.rolloutId, container);
        return true;
      }
      logger.warn('an automatic rollout could not start', {
        container: container.name,
        reason: result.refusal.message,
      });
      return false;
    },
    pause: (id, by) => transitions.pause(id, by),
    resume: (id, by) => transitions.resume(id, by),
    abort: (id, by) => transitions.abort(id, by),
  };
}
