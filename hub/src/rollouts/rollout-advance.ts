import type { Logger } from '../../../shared/logging/logger';
import type { Rollout, RolloutHost } from '../../../shared/schemas/rollout';
import type { RolloutStore } from './rollout-store';
import {
  endWave,
  hostOpen,
  hostOutcome,
  hostStarted,
  hostsOfWave,
  mayRequest,
  type OperationOf,
  underWay,
  unrequested,
} from './wave-outcome';
import type { WaveRequest } from './wave-requests';

export interface RolloutAdvanceDeps {
  store: RolloutStore;
  logger: Logger;
  now: () => number;
  operationOf: OperationOf;
  request: WaveRequest;
  /** Called before each request: the end of the update it starts must wake the runner. */
  beforeRequest: () => void;
  stopping: () => boolean;
  recheckMs: number;
}

/**
 * One rollout carried on as far as it can go now, from its stored record alone (so a restart
 * changes nothing): the pause before the current wave, the wave's updates requested (each stored
 * as it is), their operations read, the wave ended. Answers when to look again: the pause's end,
 * a recheck while operations run, or undefined (an operation's end or a person wakes it).
 */
export function createRolloutAdvance(deps: RolloutAdvanceDeps): (id: string) => Promise<number | undefined> {
  const { store, now } = deps;
  const iso = () => new Date(now()).toISOString();

  const startedWith = (host: RolloutHost, requested: RolloutHost['containers'][number], at: string): RolloutHost => ({
    ...host,
    state: hostStarted(host) ? host.state : 'updating',
    startedAt: host.startedAt ?? at,
    containers: host.containers.map((entry) => (entry.containerId === requested.containerId ? requested : entry)),
  });

  /** Requests the updates of the wave not requested yet; false once the hub is stopping. */
  async function requestWave(id: string, wave: number): Promise<boolean> {
    for (;;) {
      const rollout = store.get(id);
      const host = rollout && hostsOfWave(rollout, wave).find((one) => mayRequest(rollout, one));
      const entry = host?.containers.find(unrequested);
      if (!rollout || !host || !entry) return true;
      if (deps.stopping()) return false;
      deps.beforeRequest();
      const requested = await deps.request(rollout, entry);
      if (!requested) return false;
      await store.change(id, (latest) => {
        const { nextWaveAt: _started, ...rest } = latest;
        const hosts = latest.hosts.map((one) => (one.host === host.host ? startedWith(one, requested, iso()) : one));
        return { ...rest, hosts };
      });
    }
  }

  /** Reads the operations of the wave's hosts under way into the record; true when something changed. */
  async function follow(id: string, wave: number): Promise<boolean> {
    let changed = false;
    await store.change(id, (latest) => {
      const hosts = latest.hosts.map((host) => {
        if (host.wave !== wave || host.state !== 'updating' || host.containers.some(unrequested)) return host;
        const next = hostOutcome(host, deps.operationOf, iso());
        if (JSON.stringify(next) === JSON.stringify(host)) return host;
        changed = true;
        return next;
      });
      return changed ? { ...latest, hosts } : undefined;
    });
    return changed;
  }

  async function finishWave(id: string, wave: number): Promise<void> {
    let failedHost: RolloutHost | undefined;
    const stored = await store.change(
      id,
      (latest) => {
        if (latest.currentWave !== wave) return undefined;
        const ended = endWave(latest, wave, now());
        failedHost = ended.failedHost;
        return ended.rollout;
      },
      (ended) => {
        if (failedHost)
          return [{ status: 'halted', details: `wave ${wave} failed on ${failedHost.host}: ${ended.failure?.reason}` }];
        const hosts = hostsOfWave(ended, wave).map((host) => host.host);
        const succeeded = { status: 'wave-succeeded', details: `wave ${wave} (${hosts.join(', ')})` };
        return ended.state === 'completed' ? [succeeded, completed(ended)] : [succeeded];
      },
    );
    // Logged once the halt is stored and audited, not while its entries are being written.
    if (stored && failedHost)
      deps.logger.warn('a rollout halted', {
        rollout: id,
        wave,
        host: failedHost.host,
        reason: stored.failure?.reason,
      });
  }

  const completed = (rollout: Rollout) => ({ status: 'completed', details: `${rollout.hosts.length} hosts updated` });

  return async function advance(id) {
    for (;;) {
      const rollout = store.get(id);
      if (!rollout || !underWay(rollout) || deps.stopping()) return undefined;
      const wave = rollout.currentWave;
      const hosts = hostsOfWave(rollout, wave);
      if (rollout.state === 'running' && wave >= rollout.waves) {
        // Resumed after its last wave ended while it was paused.
        await store.change(
          id,
          (latest) => ({ ...latest, state: 'completed', finishedAt: iso() }),
          (done) => [completed(done)],
        );
        continue;
      }
      const pauseEnds = rollout.nextWaveAt === undefined ? 0 : Date.parse(rollout.nextWaveAt);
      if (!hosts.some(hostStarted) && pauseEnds > now()) return pauseEnds;
      if (hosts.some((host) => mayRequest(rollout, host))) {
        if (!(await requestWave(id, wave))) return undefined;
        continue;
      }
      if (await follow(id, wave)) continue;
      if (hosts.some((host) => host.state === 'updating')) return now() + deps.recheckMs;
      if (hosts.some(hostOpen)) return undefined;
      await finishWave(id, wave);
    }
  };
}
