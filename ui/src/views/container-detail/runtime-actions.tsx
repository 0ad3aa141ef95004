import { useState } from 'preact/hooks';
import type { Container } from '../../api';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorText } from '../../components/error-text';
import { navigate } from '../../router';
import { putContainer, removeContainer } from '../../state';
import { useAction } from '../../use-action';
import { detailApi } from './detail-api';

/**
 * Start, stop, restart (http-interface §4.8, DD_SERVER_FEATURE_CONTAINERACTIONS) and removing the
 * record from the hub (DD_SERVER_FEATURE_DELETE, off by default): asked first, sent with
 * `X-DD-Confirm-Action: container-delete` (§4.1). A switched-off feature answers 403, said as such.
 * `locked` while an update or rollback of the container runs: each of these would fight it.
 */
export function RuntimeActions({ c, locked = false }: { c: Container; locked?: boolean }) {
  const acting = useAction<'start' | 'stop' | 'restart' | 'remove'>();
  const busy = acting.running;
  const [removing, setRemoving] = useState(false);
  const running = c.status === 'running' || c.status === 'restarting' || c.status === 'paused';

  async function act(name: 'start' | 'stop' | 'restart' | 'remove', run: () => Promise<void>) {
    if (!(await acting.run(run, name))) setRemoving(false);
  }
  const control = (action: 'start' | 'stop' | 'restart') =>
    act(action, async () => putContainer(await detailApi.control(c.id, action)));

  return (
    <>
      <div class="actions">
        {running ? (
          <>
            <button
              type="button"
              class="secondary"
              disabled={busy !== undefined || locked}
              onClick={() => control('stop')}
            >
              {busy === 'stop' ? 'Stopping…' : 'Stop'}
            </button>
            <button
              type="button"
              class="secondary"
              disabled={busy !== undefined || locked}
              onClick={() => control('restart')}
            >
              {busy === 'restart' ? 'Restarting…' : 'Restart'}
            </button>
          </>
        ) : (
          <button
            type="button"
            class="secondary"
            disabled={busy !== undefined || locked}
            onClick={() => control('start')}
          >
            {busy === 'start' ? 'Starting…' : 'Start'}
          </button>
        )}
        <button type="button" class="danger" disabled={busy !== undefined || locked} onClick={() => setRemoving(true)}>
          Remove from the hub…
        </button>
      </div>
      {locked && <p class="hint">Stop, restart and remove wait until the update or rollback has finished.</p>}
      <ErrorText message={acting.error} />
      {removing && (
        <ConfirmDialog
          title="Remove this container from the hub?"
          action="Remove"
          busy={busy === 'remove'}
          onConfirm={() =>
            act('remove', async () => {
              await detailApi.remove(c.id);
              removeContainer(c.id);
              navigate('/containers');
            })
          }
          onCancel={() => setRemoving(false)}
        >
          <p>
            The hub forgets <span class="break">{c.name}</span> and its update policy. The Docker container is not
            touched: the next watch finds it again.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
