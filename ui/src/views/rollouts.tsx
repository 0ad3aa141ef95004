import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../shared/error-message';
import { focusOpener, rolloutsSeen, useReloadOnReconnect } from '../admin-events';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorText, NoticeText } from '../components/error-text';
import { useAction } from '../use-action';
import { RolloutCard } from './rollouts/rollout-card';
import { RolloutForm } from './rollouts/rollout-form';
import { abortSentence } from './rollouts/rollout-words';
import { type Rollout, type RolloutAction, rolloutsApi } from './rollouts/rollouts-api';
import './rollouts/rollouts.css';

/** The loaded list with what the stream said since: the newer record of each, newest rollout first. */
function merged(loaded: readonly Rollout[], seen: ReadonlyMap<string, Rollout>): Rollout[] {
  const byId = new Map(loaded.map((rollout) => [rollout.id, rollout]));
  for (const [id, rollout] of seen) {
    const held = byId.get(id);
    if (!held || held.updatedAt <= rollout.updatedAt) byId.set(id, rollout);
  }
  return [...byId.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}

const DONE: Record<RolloutAction, string> = { pause: 'paused', resume: 'resumed', abort: 'aborted' };

/**
 * Staged rollouts (docs/group-policies.md): each with its state and waves, live from the event
 * stream (`dd:rollout-started`, `dd:rollout-updated`); start one, pause, resume, abort (asked first).
 */
export function Rollouts() {
  const [loaded, setLoaded] = useState<Rollout[] | undefined>();
  const [aborting, setAborting] = useState<Rollout | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  // The form is folded behind its button: the page is first about the rollouts under way.
  const [starting, setStarting] = useState(false);
  const { busy, error, setError, run } = useAction<RolloutAction>();

  const load = () =>
    rolloutsApi.list().then(
      (page) => setLoaded(page.data),
      (failure: unknown) => setError(errorMessage(failure)),
    );
  useEffect(() => void load(), []);
  useReloadOnReconnect(load);

  const keep = (rollout: Rollout) => setLoaded((held) => [rollout, ...(held ?? []).filter((r) => r.id !== rollout.id)]);

  async function act(rollout: Rollout, action: RolloutAction) {
    setNotice(undefined);
    await run(async () => {
      keep(await rolloutsApi.act(rollout.id, action));
      setNotice(`The rollout of ${rollout.image} to ${rollout.toVersion} is ${DONE[action]}.`);
    }, action);
    setAborting(undefined);
  }

  const rollouts = loaded && merged(loaded, rolloutsSeen.value);
  return (
    <main id="main" tabIndex={-1}>
      <h1>Rollouts</h1>
      <p class="hint">
        A rollout updates one image on every host that runs it: a canary host first, then the others in waves, each wave
        waiting until its updates ended healthy. It halts at the first wave that fails.
      </p>
      {!starting && (
        <button type="button" id="open-rollout-form" onClick={() => setStarting(true)}>
          Start a rollout
        </button>
      )}
      {starting && (
        <RolloutForm
          onCancel={() => {
            setStarting(false);
            focusOpener('open-rollout-form');
          }}
          onStarted={(rollout) => {
            setStarting(false);
            focusOpener('open-rollout-form');
            keep(rollout);
            setNotice(`Rollout of ${rollout.image} to ${rollout.toVersion} started.`);
          }}
        />
      )}
      <ErrorText message={error} />
      <NoticeText message={notice} />
      <h2 class="rollouts-title">Rollouts, newest first</h2>
      {rollouts?.length === 0 && <p>No rollout yet.</p>}
      {rollouts?.map((rollout) => (
        <RolloutCard
          key={rollout.id}
          rollout={rollout}
          busy={busy}
          onAct={(target, action) => (action === 'abort' ? setAborting(target) : void act(target, action))}
        />
      ))}
      {aborting && (
        <ConfirmDialog
          title={`Abort the rollout of ${aborting.image}?`}
          action="Abort the rollout"
          busy={busy}
          onConfirm={() => act(aborting, 'abort')}
          onCancel={() => setAborting(undefined)}
        >
          <p>{abortSentence(aborting)}</p>
        </ConfirmDialog>
      )}
    </main>
  );
}
