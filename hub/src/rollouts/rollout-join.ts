import type { Container } from '../../../shared/schemas/container';
import { FINISHED_ROLLOUT_STATES, type Rollout } from '../../../shared/schemas/rollout';
import { rolloutHostOf } from '../policies/effective-group-policy';
import { currentVersion } from '../updates/update-target';

/**
 * The rollout with a container found with its candidate after it was planned (another host's
 * watch came later): its host joins the last wave not started yet when it has room, or a new wave
 * at the end. Undefined when nothing changes: nothing joins a finished rollout, nor a host whose
 * wave has started, and a container joins once.
 */
export function withJoined(rollout: Rollout, container: Container): Rollout | undefined {
  if (FINISHED_ROLLOUT_STATES.includes(rollout.state)) return undefined;
  const host = rolloutHostOf(container);
  const entry = { containerId: container.id, containerName: container.name, fromVersion: currentVersion(container) };
  const known = rollout.hosts.find((one) => one.host === host);
  if (known) {
    if (known.wave <= rollout.currentWave || known.containers.some((one) => one.containerId === container.id))
      return undefined;
    return {
      ...rollout,
      hosts: rollout.hosts.map((one) => (one === known ? { ...one, containers: [...one.containers, entry] } : one)),
    };
  }
  const lastWave = rollout.waves - 1;
  const room = rollout.hosts.filter((one) => one.wave === lastWave).length < rollout.waveSize;
  const wave = lastWave > rollout.currentWave && room ? lastWave : lastWave + 1;
  return {
    ...rollout,
    waves: Math.max(rollout.waves, wave + 1),
    hosts: [...rollout.hosts, { host, wave, state: 'pending', containers: [entry] }],
  };
}
