import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import type { GroupPolicy } from '../../../shared/schemas/group-policy';
import {
  FINISHED_ROLLOUT_STATES,
  type Rollout,
  type RolloutHost,
  RolloutSchema,
  type RolloutStartBody,
} from '../../../shared/schemas/rollout';
import type { Settings } from '../../../shared/schemas/settings';
import { errorText } from '../../../shared/update-engine';
import type { Publish } from '../events/event-bus';
import { HttpError } from '../http/http-error';
import { effectiveGroupPolicy, hostOf } from '../policies/effective-group-policy';
import type { GroupPolicyStore } from '../policies/group-policy-store';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import { createSerialQueue, readValidated } from '../store/validated-storage';
import type { UpdateService } from '../updates/update-service';
import { currentVersion, updateTargetOf } from '../updates/update-target';
import { planRollout, repositoryOf } from './rollout-plan';

const PREFIX = 'rollouts';
const keyOf = (id: string) => `${PREFIX}:${id}`;
/** Finished rollouts kept for the list; the oldest go first. */
const MAX_FINISHED = 200;
const SETTLED = new Set(['succeeded', 'rolled-back', 'failed']);
/** How often a running wave looks at its operations (they settle in seconds to minutes). */
const DEFAULT_POLL_MS = 250;

export interface RolloutServiceDeps {
  storage: Storage;
  logger: Logger;
  now: () => number;
  audit: Pick<AuditStore, 'append'>;
  publish: Publish;
  containers: Pick<ContainerStore, 'all' | 'get'>;
  settings: { get(): Pick<Settings, 'updateMode' | 'approvalRequired'> };
  policies: Pick<GroupPolicyStore, 'get'>;
  updates: Pick<UpdateService, 'requestUpdate' | 'get'>;
  pollMs?: number | undefined;
}

/**
 * Staged rollouts (docs/group-policies.md "Staged rollouts"): the same image and candidate on many
 * hosts, updated through the update service host by host: a canary first, then waves, each one
 * waiting for its operations to end (the update engine's health gate decides "healthy"), halting at
 * the first wave that fails and leaving the remaining hosts untouched. Every change is stored before
 * it is announced, so a restarted hub shows a rollout it was running as `interrupted`.
 */
export interface RolloutService {
  load(): Promise<void>;
  /** Ends the runners; what they were running stays `running` in storage, read back as `interrupted`. */
  stop(): void;
  list(): Rollout[];
  get(id: string): Rollout | undefined;
  start(body: RolloutStartBody, by: string): Promise<Rollout>;
  /** The auto-update policy hands a container over when its policy rolls out automatically; true when a rollout has it. */
  startAutomatic(container: Container): Promise<boolean>;
  /** Whether the auto-update policy should leave this container to a rollout. */
  rollsOutAutomatically(container: Container): boolean;
  pause(id: string, by: string): Promise<Rollout>;
  resume(id: string, by: string): Promise<Rollout>;
  abort(id: string, by: string): Promise<Rollout>;
  /** Resolves once no runner is active (tests). */
  idle(): Promise<void>;
}

const newestFirst = (a: Rollout, b: Rollout) => (a.createdAt === b.createdAt ? 0 : a.createdAt < b.createdAt ? 1 : -1);

export function createRolloutService(deps: RolloutServiceDeps): RolloutService {
  const logger = deps.logger.child('rollouts');
  const rollouts = new Map<string, Rollout>();
  const serial = createSerialQueue();
  const runners = new Map<string, Promise<void>>();
  const pollMs = deps.pollMs ?? DEFAULT_POLL_MS;
  let stopped = false;
  const iso = () => new Date(deps.now()).toISOString();

  async function save(rollout: Rollout, event: 'dd:rollout-started' | 'dd:rollout-updated' = 'dd:rollout-updated') {
    await deps.storage.setItem(keyOf(rollout.id), rollout);
    rollouts.set(rollout.id, rollout);
    deps.publish(event, rollout);
  }

  /** Read-modify-write of one rollout, one at a time; answers the stored record. */
  const change = (id: string, edit: (rollout: Rollout) => Rollout | undefined) =>
    serial(async () => {
      const current = rollouts.get(id);
      if (!current) throw new HttpError(404, `Unknown rollout ${id.slice(0, 80)}`);
      const next = edit(current);
      if (!next) return current;
      const saved = { ...next, updatedAt: iso() };
      await save(saved);
      return saved;
    });

  async function audit(rollout: Rollout, status: string, details: string): Promise<void> {
    await deps.audit.append({
      action: 'rollout',
      containerImage: `${rollout.image}:${rollout.toVersion}`,
      toVersion: rollout.toVersion,
      status,
      details: `rollout ${rollout.id}: ${details}`.slice(0, 1000),
    });
  }

  async function trim(): Promise<void> {
    const finished = [...rollouts.values()]
      .filter((rollout) => FINISHED_ROLLOUT_STATES.includes(rollout.state))
      .sort(newestFirst);
    for (const old of finished.slice(MAX_FINISHED)) {
      await deps.storage.removeItem(keyOf(old.id));
      rollouts.delete(old.id);
    }
  }

  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

  /** Queues the update of each container of the host; a refusal fails that container at once. */
  async function startHost(rollout: Rollout, host: RolloutHost): Promise<RolloutHost> {
    const containers = [];
    for (const planned of host.containers) {
      if (planned.operationId !== undefined) {
        containers.push(planned);
        continue;
      }
      const record = deps.containers.get(planned.containerId);
      const target = record && updateTargetOf(record);
      if (!record || !target || target.toVersion !== rollout.toVersion) {
        containers.push({ ...planned, status: 'failed' as const, error: 'the candidate is no longer pending' });
        continue;
      }
      try {
        const operation = await deps.updates.requestUpdate(record.id, { source: 'api', batchId: rollout.id });
        containers.push({ ...planned, operationId: operation.id, status: operation.status });
      } catch (error) {
        const reason = error instanceof HttpError ? (error.details?.['reason'] ?? error.message) : errorText(error);
        containers.push({ ...planned, status: 'failed' as const, error: String(reason).slice(0, 300) });
      }
    }
    return { ...host, state: 'updating', startedAt: host.startedAt ?? iso(), containers };
  }

  /** Waits until every operation of the wave has ended; answers the hosts with their outcome. */
  async function settleWave(hosts: RolloutHost[]): Promise<RolloutHost[]> {
    for (;;) {
      const waiting = hosts.some((host) =>
        host.containers.some((entry) => {
          if (entry.operationId === undefined) return false;
          const operation = deps.updates.get(entry.operationId);
          return operation !== undefined && !SETTLED.has(operation.status);
        }),
      );
      if (!waiting || stopped) return hosts.map(outcomeOf);
      await sleep(pollMs);
    }
  }

  function outcomeOf(host: RolloutHost): RolloutHost {
    const containers = host.containers.map((entry) => {
      if (entry.operationId === undefined) return entry;
      const operation = deps.updates.get(entry.operationId);
      if (!operation) return { ...entry, status: 'failed' as const, error: 'the operation is gone' };
      const error =
        operation.status === 'rolled-back'
          ? `rolled back: ${operation.rollbackReason ?? operation.lastError ?? 'unknown reason'}`
          : operation.status === 'failed'
            ? (operation.lastError ?? 'failed')
            : undefined;
      return { ...entry, status: operation.status, ...(error !== undefined && { error: error.slice(0, 300) }) };
    });
    const failed = containers.find((entry) => entry.status !== 'succeeded');
    const open = containers.some((entry) => entry.status === 'queued' || entry.status === 'in-progress');
    if (open) return { ...host, containers };
    return {
      ...host,
      containers,
      state: failed ? 'failed' : 'succeeded',
      finishedAt: iso(),
      ...(failed && { error: `${failed.containerName}: ${failed.error ?? failed.status}` }),
    };
  }

  /** One wave, from queueing its updates to recording how they ended. Answers false when the rollout stops here. */
  async function runWave(id: string, wave: number): Promise<boolean> {
    const before = rollouts.get(id) as Rollout;
    const started: RolloutHost[] = [];
    for (const host of before.hosts.filter((candidate) => candidate.wave === wave))
      started.push(host.state === 'pending' ? await startHost(before, host) : host);
    await change(id, (rollout) => ({
      ...rollout,
      hosts: rollout.hosts.map((host) => started.find((one) => one.host === host.host) ?? host),
    }));
    const ended = await settleWave(started);
    if (stopped) return false;
    const failedHost = ended.find((host) => host.state === 'failed');
    const rollout = await change(id, (current) => {
      const hosts = current.hosts.map((host) => {
        const one = ended.find((candidate) => candidate.host === host.host);
        if (one) return one;
        return failedHost && host.state === 'pending' ? { ...host, state: 'untouched' as const } : host;
      });
      if (failedHost) {
        const entry = failedHost.containers.find((candidate) => candidate.status !== 'succeeded');
        return {
          ...current,
          hosts,
          state: current.state === 'aborted' ? 'aborted' : 'halted',
          finishedAt: current.finishedAt ?? iso(),
          failure: {
            host: failedHost.host,
            wave,
            ...(entry && { containerName: entry.containerName }),
            ...(entry?.operationId !== undefined && { operationId: entry.operationId }),
            reason: entry?.error ?? failedHost.error ?? 'failed',
          },
        };
      }
      const last = wave + 1 >= current.waves;
      return {
        ...current,
        hosts,
        currentWave: wave + 1,
        ...(last && current.state === 'running' && { state: 'completed', finishedAt: iso() }),
        ...(!last &&
          current.pauseSeconds > 0 && { nextWaveAt: new Date(deps.now() + current.pauseSeconds * 1000).toISOString() }),
      };
    });
    const hostsOfWave = ended.map((host) => host.host).join(', ');
    if (failedHost) {
      await audit(rollout, 'halted', `wave ${wave} failed on ${failedHost.host}: ${rollout.failure?.reason}`);
      logger.warn('a rollout halted', { rollout: id, wave, host: failedHost.host, reason: rollout.failure?.reason });
      return false;
    }
    await audit(rollout, 'wave-succeeded', `wave ${wave} (${hostsOfWave})`);
    if (rollout.state === 'completed') await audit(rollout, 'completed', `${rollout.hosts.length} hosts updated`);
    return rollout.state === 'running';
  }

  /** Waits out the pause before the next wave; answers false when the rollout stopped running meanwhile. */
  async function pauseBeforeWave(id: string): Promise<boolean> {
    for (;;) {
      const rollout = rollouts.get(id);
      if (stopped || !rollout || rollout.state !== 'running') return false;
      const at = rollout.nextWaveAt === undefined ? 0 : Date.parse(rollout.nextWaveAt);
      if (deps.now() >= at) return true;
      await sleep(Math.min(pollMs * 4, at - deps.now()));
    }
  }

  async function run(id: string): Promise<void> {
    for (;;) {
      if (!(await pauseBeforeWave(id))) return;
      const rollout = rollouts.get(id) as Rollout;
      if (rollout.currentWave >= rollout.waves) return;
      if (rollout.nextWaveAt !== undefined)
        await change(id, (current) => {
          const { nextWaveAt: _done, ...rest } = current;
          return rest;
        });
      if (!(await runWave(id, rollout.currentWave))) return;
    }
  }

  function launch(id: string): void {
    if (runners.has(id) || stopped) return;
    const runner = run(id)
      .catch((error: unknown) => logger.error('a rollout runner failed', { rollout: id, error: errorText(error) }))
      .finally(() => runners.delete(id));
    runners.set(id, runner);
  }

  function activeFor(image: string, toVersion: string): Rollout | undefined {
    return [...rollouts.values()].find(
      (rollout) =>
        rollout.image === image && rollout.toVersion === toVersion && !FINISHED_ROLLOUT_STATES.includes(rollout.state),
    );
  }

  async function begin(
    body: RolloutStartBody,
    shape: NonNullable<GroupPolicy['rollout']> | undefined,
    origin: Rollout['origin'],
    by: string,
  ): Promise<Rollout> {
    const waveSize = body.waveSize ?? shape?.waveSize ?? 1;
    const pauseSeconds = body.pauseSeconds ?? shape?.pauseSeconds ?? 0;
    const plan = planRollout(
      deps.containers.all(),
      { image: body.image, toVersion: body.toVersion, group: body.group },
      { canaryHost: body.canaryHost ?? shape?.canaryHost, waveSize },
    );
    const first = deps.containers.get(plan.hosts[0]?.containers[0]?.containerId ?? '');
    const image = first ? repositoryOf(first) : body.image;
    return serial(async () => {
      const active = activeFor(image, plan.toVersion);
      if (active)
        throw new HttpError(409, 'A rollout of this image and candidate is under way', {
          reason: 'rollout-active',
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
      await save(rollout, 'dd:rollout-started');
      await trim();
      await audit(
        rollout,
        'started',
        `by ${by}; canary ${plan.hosts[0]?.host}, then ${plan.waves - 1} wave(s) of ${waveSize} host(s)`,
      );
      launch(rollout.id);
      return rollout;
    });
  }

  /**
   * A container found with the candidate after its rollout was planned (another host's watch came
   * later): its host joins the last wave not started yet, or a new wave at the end. Nothing joins a
   * finished rollout, nor a host whose wave has started.
   */
  async function join(id: string, container: Container): Promise<void> {
    const host = hostOf(container);
    const entry = { containerId: container.id, containerName: container.name, fromVersion: currentVersion(container) };
    await change(id, (current) => {
      if (FINISHED_ROLLOUT_STATES.includes(current.state)) return undefined;
      const known = current.hosts.find((one) => one.host === host);
      if (known) {
        if (known.wave <= current.currentWave || known.containers.some((one) => one.containerId === container.id))
          return undefined;
        return {
          ...current,
          hosts: current.hosts.map((one) => (one === known ? { ...one, containers: [...one.containers, entry] } : one)),
        };
      }
      const lastWave = current.waves - 1;
      const room = current.hosts.filter((one) => one.wave === lastWave).length < current.waveSize;
      const wave = lastWave > current.currentWave && room ? lastWave : lastWave + 1;
      logger.info('a host joins a rollout', { rollout: id, host, wave });
      return {
        ...current,
        waves: Math.max(current.waves, wave + 1),
        hosts: [...current.hosts, { host, wave, state: 'pending', containers: [entry] }],
      };
    });
  }

  const rolloutPolicyOf = (container: Container) =>
    effectiveGroupPolicy(container, deps.settings.get(), deps.policies).effective.rollout;

  function find(id: string): Rollout {
    const rollout = rollouts.get(id);
    if (!rollout) throw new HttpError(404, `Unknown rollout ${id.slice(0, 80)}`);
    return rollout;
  }

  const refuse = (rollout: Rollout, action: string) =>
    new HttpError(409, `A ${rollout.state} rollout cannot be ${action}`, {
      reason: 'rollout-state',
      state: rollout.state,
    });

  return {
    async load() {
      rollouts.clear();
      const keys = await deps.storage.getKeys(PREFIX);
      for (const key of keys) {
        const rollout = await readValidated(deps.storage, key, RolloutSchema, logger);
        if (!rollout) continue;
        // Whatever ran when the hub went away is shown as interrupted, never left as running.
        if (rollout.state === 'running') {
          const interrupted: Rollout = { ...rollout, state: 'interrupted', updatedAt: iso() };
          await deps.storage.setItem(key, interrupted);
          rollouts.set(rollout.id, interrupted);
          await audit(interrupted, 'interrupted', `the hub stopped during wave ${rollout.currentWave}`);
        } else rollouts.set(rollout.id, rollout);
      }
    },
    stop() {
      stopped = true;
    },
    list: () => [...rollouts.values()].sort(newestFirst),
    get: (id) => rollouts.get(id),
    async start(body, by) {
      const group = body.group;
      let shape: NonNullable<GroupPolicy['rollout']> | undefined;
      if (group !== undefined) shape = deps.policies.get('group', group)?.rollout;
      return begin(body, shape, 'api', by);
    },
    rollsOutAutomatically: (container) => rolloutPolicyOf(container)?.value.automatic === true,
    async startAutomatic(container) {
      const policy = rolloutPolicyOf(container);
      const target = updateTargetOf(container);
      if (!policy?.value.automatic || !target) return false;
      const image = repositoryOf(container);
      // Once per candidate: a halted or aborted rollout is not started again by itself; a host whose
      // watch finds the candidate while one is under way joins it.
      const existing = [...rollouts.values()].find(
        (rollout) => rollout.image === image && rollout.toVersion === target.toVersion,
      );
      if (existing) {
        await join(existing.id, container);
        return true;
      }
      try {
        await begin(
          {
            image,
            toVersion: target.toVersion,
            ...(policy.source === 'group-policy' && container.group !== undefined && { group: container.group }),
          },
          policy.value,
          'auto',
          'auto-update',
        );
      } catch (error) {
        if (!(error instanceof HttpError) || error.details?.['reason'] !== 'rollout-active') throw error;
        await join(error.details['rolloutId'] as string, container);
      }
      return true;
    },
    async pause(id, by) {
      const rollout = find(id);
      if (rollout.state !== 'running') throw refuse(rollout, 'paused');
      const paused = await change(id, (current) => ({ ...current, state: 'paused', by }));
      await audit(paused, 'paused', `by ${by} before wave ${paused.currentWave}`);
      return paused;
    },
    async resume(id, by) {
      const rollout = find(id);
      if (rollout.state !== 'paused' && rollout.state !== 'interrupted') throw refuse(rollout, 'resumed');
      const resumed = await change(id, (current) => {
        const { nextWaveAt: _pause, ...rest } = current;
        return { ...rest, state: 'running', by };
      });
      await audit(resumed, 'resumed', `by ${by} at wave ${resumed.currentWave}`);
      launch(id);
      return resumed;
    },
    async abort(id, by) {
      const rollout = find(id);
      if (FINISHED_ROLLOUT_STATES.includes(rollout.state)) throw refuse(rollout, 'aborted');
      const aborted = await change(id, (current) => ({
        ...current,
        state: 'aborted',
        by,
        finishedAt: iso(),
        // A wave under way ends by itself (its operations are not cancelled); the hosts after it are left alone.
        hosts: current.hosts.map((host) =>
          host.state === 'pending' ? { ...host, state: 'untouched' as const } : host,
        ),
      }));
      await audit(aborted, 'aborted', `by ${by} at wave ${aborted.currentWave}`);
      return aborted;
    },
    async idle() {
      while (runners.size > 0) await Promise.all([...runners.values()]);
    },
  };
}
