import { useState } from 'preact/hooks';
import type { Container } from '../../api';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorText } from '../../components/error-text';
import { useAction } from '../../use-action';
import { type ContainerGroup, detailApi } from './detail-api';
import { wavesFrom } from './group-waves';
import { useSectionRead } from './use-section-read';

/**
 * The container's group (GET /containers/groups: its Podman pod, `dd.group`, else its compose
 * project) with what it depends on and what depends on it; when something does, or the pod has an
 * update, the dependency-group update with its waves (a pod is updated as one unit), asked first and
 * sent with `X-DD-Confirm-Action: dependency-group-update` (http-interface §4.1).
 */
const KIND_WORDS: Record<ContainerGroup['kind'], string> = {
  label: 'dd.group label',
  compose: 'compose project',
  pod: 'Podman pod (updated as one unit)',
};

export function GroupSection({ c }: { c: Container }) {
  const [group, setGroup] = useState<ContainerGroup | null | undefined>();
  const [asking, setAsking] = useState(false);
  const [readError, setError] = useState<string | undefined>();
  const { busy, error: actionError, run } = useAction();
  const error = actionError ?? readError;
  const [done, setDone] = useState<string | undefined>();

  useSectionRead(
    async (signal) => {
      if (!c.group) return null;
      const page = await detailApi.groups(signal);
      return page.data.find((g) => g.containers.some((member) => member.id === c.id)) ?? null;
    },
    setGroup,
    setError,
    [c.id, c.group],
  );

  if (group === null || (group === undefined && !error)) return null;
  const self = group?.containers.find((member) => member.id === c.id);
  const pod = group?.kind === 'pod';
  const podmates = pod ? (group?.containers.filter((member) => member.id !== c.id) ?? []) : [];
  const updatable = self && (self.dependents.length > 0 || (pod && (group?.updatesAvailable ?? 0) > 0));
  const waves = group && self && updatable ? wavesFrom(self, group.containers, podmates) : [];

  async function update() {
    await run(async () => {
      const started = await detailApi.updateGroup(c.id);
      setDone(`${started.message} (${started.waves} waves)`);
    });
    setAsking(false);
  }

  return (
    <section class="card" aria-labelledby="group">
      <h2 id="group" class="break">
        Group {group?.name}
      </h2>
      {group && self && (
        <dl class="grid">
          <dt>Kind</dt>
          <dd>{KIND_WORDS[group.kind]}</dd>
          <dt>Members</dt>
          <dd class="break">
            {group.containers.map((member) => member.name).join(', ')} ({group.updatesAvailable} with an update)
          </dd>
          <dt>Depends on</dt>
          <dd class="break">{self.dependsOn.join(', ') || 'nothing'}</dd>
          <dt>Needed by</dt>
          <dd class="break">{self.dependents.join(', ') || 'nothing'}</dd>
        </dl>
      )}
      {waves.length > 0 && (
        <>
          <h3>{pod ? 'Updating the pod' : 'Updating it with its dependents'}</h3>
          <ol class="waves">
            {waves.map((wave, index) => (
              <li key={wave.map((member) => member.id).join()}>
                Wave {index + 1}:{' '}
                <span class="break">
                  {wave.map((member) => `${member.name}${member.updateAvailable ? ' (update)' : ''}`).join(', ')}
                </span>
              </li>
            ))}
          </ol>
          <div class="actions">
            <button type="button" class="secondary" disabled={busy} onClick={() => setAsking(true)}>
              {pod ? 'Update the pod…' : 'Update the group…'}
            </button>
          </div>
        </>
      )}
      {done && <p role="status">{done}</p>}
      <ErrorText message={error} />
      {asking && (
        <ConfirmDialog
          title={pod ? 'Update the whole pod?' : 'Update the dependency group?'}
          action={pod ? 'Update the pod' : 'Update the group'}
          busy={busy}
          onConfirm={update}
          onCancel={() => setAsking(false)}
        >
          <p>
            Each container with an update is re-created, {waves.length} waves in order; a failure stops the waves after
            it.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
