// A rollout's states and outcomes in plain words (docs/group-policies.md "Staged rollouts").
import type { Rollout, RolloutHost } from './rollouts-api';

export const STATE_WORDS: Record<Rollout['state'], string> = {
  running: 'Running',
  paused: 'Paused',
  completed: 'Completed',
  halted: 'Halted',
  aborted: 'Aborted',
  interrupted: 'Interrupted',
};

export const HOST_WORDS: Record<RolloutHost['state'], string> = {
  pending: 'Waiting its turn',
  updating: 'Updating',
  succeeded: 'Updated',
  failed: 'Failed',
  untouched: 'Not touched',
};

type OperationStatus = NonNullable<RolloutHost['containers'][number]['status']>;
export const OPERATION_WORDS: Record<OperationStatus, string> = {
  queued: 'Queued',
  'in-progress': 'Updating',
  succeeded: 'Updated',
  'rolled-back': 'Rolled back',
  failed: 'Failed',
};

/** The hub's own hosts are `__local__:<watcher>`: said as this hub's watcher. */
export function hostWords(host: string): string {
  return host.startsWith('__local__:') ? `this hub (watcher ${host.slice('__local__:'.length)})` : host;
}

export const waveName = (wave: number) => (wave === 0 ? 'Canary' : `Wave ${wave}`);

/** One sentence on where the rollout is, under its title. */
export function stateSentence(rollout: Rollout): string {
  const at = `${waveName(rollout.currentWave).toLowerCase()} of ${rollout.waves}`;
  switch (rollout.state) {
    case 'running':
      return rollout.nextWaveAt ? `Waiting before ${at}.` : `Updating: ${at}.`;
    case 'paused':
      return `Paused before ${at}. Resume to go on.`;
    case 'interrupted':
      return `Interrupted at ${at} by a restart of an older hub. Resume to go on.`;
    case 'completed':
      return 'Every host is updated.';
    case 'halted':
      return rollout.failure
        ? `Halted at ${waveName(rollout.failure.wave).toLowerCase()}: ${rollout.failure.containerName ?? hostWords(rollout.failure.host)} ${rollout.failure.reason}. Later hosts were not touched.`
        : 'Halted: a wave failed. Later hosts were not touched.';
    case 'aborted':
      return 'Aborted: no host after the wave under way was touched.';
  }
}

/** The one obvious action of a rollout in this state, if any (abort stands beside it, asked first). */
export function primaryAction(state: Rollout['state']): 'pause' | 'resume' | undefined {
  if (state === 'running') return 'pause';
  if (state === 'paused' || state === 'interrupted') return 'resume';
  return undefined;
}

export const isFinished = (state: Rollout['state']) =>
  state === 'completed' || state === 'halted' || state === 'aborted';

/** What aborting does to this rollout, named by host: the dialog's words before a person confirms. */
export function abortSentence(rollout: Rollout): string {
  const named = (state: RolloutHost['state']) =>
    rollout.hosts.filter((host) => host.state === state).map((host) => hostWords(host.host));
  const updating = named('updating');
  const pending = named('pending');
  return [
    updating.length > 0 && `The updates under way on ${updating.join(', ')} end by themselves: they are not cancelled.`,
    pending.length > 0 && `Not touched, staying on their version: ${pending.join(', ')}.`,
    'An aborted rollout cannot be resumed.',
  ]
    .filter(Boolean)
    .join(' ');
}
