import { relative, when } from '../../format-time';
import {
  HOST_WORDS,
  hostWords,
  isFinished,
  OPERATION_WORDS,
  primaryAction,
  STATE_WORDS,
  stateSentence,
  waveName,
} from './rollout-words';
import type { Rollout, RolloutAction, RolloutHost } from './rollouts-api';

interface RolloutCardProps {
  rollout: Rollout;
  busy: boolean;
  onAct: (rollout: Rollout, action: RolloutAction) => void;
}

function HostItem({ host, toVersion }: { host: RolloutHost; toVersion: string }) {
  return (
    <li class="rollout-host" data-host={host.host}>
      <span class="host-name">{hostWords(host.host)}</span>{' '}
      <span class={`state state-${host.state}`}>{HOST_WORDS[host.state]}</span>
      {host.finishedAt && <span class="hint"> · {relative(host.finishedAt)}</span>}
      <ul class="rollout-containers">
        {host.containers.map((entry) => (
          <li key={entry.containerId} data-container={entry.containerName}>
            {entry.containerName}{' '}
            <span class="mono">
              {entry.fromVersion} → {toVersion}
            </span>
            : <span class="outcome">{entry.status ? OPERATION_WORDS[entry.status] : 'Not started'}</span>
            {entry.error && <span class="error"> ({entry.error})</span>}
          </li>
        ))}
      </ul>
      {host.error && <p class="error">{host.error}</p>}
    </li>
  );
}

/** One rollout: its state in a sentence, its waves with their hosts and containers, and its one action. */
export function RolloutCard({ rollout, busy, onAct }: RolloutCardProps) {
  const titleId = `rollout-${rollout.id}`;
  const primary = primaryAction(rollout.state);
  const waves = Array.from({ length: rollout.waves }, (_, wave) => wave);
  const current = (wave: number) => !isFinished(rollout.state) && wave === rollout.currentWave;
  return (
    <article class="card rollout" aria-labelledby={titleId} data-rollout={rollout.id} data-state={rollout.state}>
      <header class="rollout-head">
        <h2 id={titleId}>
          <span class="mono">{rollout.image}</span> → <span class="mono">{rollout.toVersion}</span>
        </h2>
        <span class={`state state-${rollout.state}`}>{STATE_WORDS[rollout.state]}</span>
      </header>
      <p class="rollout-sentence">{stateSentence(rollout)}</p>
      {rollout.nextWaveAt && rollout.state === 'running' && (
        <p class="hint">
          Next wave <time dateTime={rollout.nextWaveAt}>{relative(rollout.nextWaveAt)}</time>.
        </p>
      )}
      <p class="hint">
        {rollout.origin === 'auto' ? 'Started by the auto-update policy' : 'Started'}{' '}
        <time dateTime={rollout.createdAt} title={when(rollout.createdAt)}>
          {relative(rollout.createdAt)}
        </time>
        {rollout.group && ` · group ${rollout.group}`} · {rollout.waveSize} host{rollout.waveSize === 1 ? '' : 's'} a
        wave
        {rollout.pauseSeconds > 0 && `, ${rollout.pauseSeconds} s between waves`}
        {rollout.by && ` · last changed by ${rollout.by}`}
      </p>
      <ol class="rollout-waves">
        {waves.map((wave) => (
          <li
            key={wave}
            class={current(wave) ? 'wave current' : 'wave'}
            aria-current={current(wave) ? 'step' : undefined}
          >
            <h3>
              {waveName(wave)}
              {current(wave) && <span class="hint"> (now)</span>}
            </h3>
            <ul>
              {rollout.hosts
                .filter((host) => host.wave === wave)
                .map((host) => (
                  <HostItem key={host.host} host={host} toVersion={rollout.toVersion} />
                ))}
            </ul>
          </li>
        ))}
      </ol>
      {!isFinished(rollout.state) && (
        <div class="actions">
          {primary && (
            <button type="button" disabled={busy} onClick={() => onAct(rollout, primary)}>
              {primary === 'pause' ? 'Pause' : 'Resume'}
              <span class="visually-hidden"> the rollout of {rollout.image}</span>
            </button>
          )}
          <button type="button" class="danger" disabled={busy} onClick={() => onAct(rollout, 'abort')}>
            Abort…<span class="visually-hidden"> the rollout of {rollout.image}</span>
          </button>
        </div>
      )}
    </article>
  );
}
