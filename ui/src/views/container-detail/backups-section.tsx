import { useState } from 'preact/hooks';
import type { Container } from '../../api';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorText } from '../../components/error-text';
import { shortDigest } from '../../format';
import { relative, when } from '../../format-time';
import { backupDirection } from '../../update-steps';
import { useAction } from '../../use-action';
import { type Backup, detailApi } from './detail-api';
import { seedOperation } from './seed-operation';
import { useSectionRead } from './use-section-read';

/**
 * A backup moves the container back to an older version, or forward to a newer one (kept when an
 * update was rolled back): "Roll back to 1.0.0", "Return to 2.0.0 (newer)".
 */
function moveLabel(backup: Backup, c: Container): string {
  return backupDirection(backup.imageTag, c.image.tag.value) === 'forward'
    ? `Return to ${backup.imageTag} (newer)`
    : `Roll back to ${backup.imageTag}`;
}

/**
 * The image backups an update kept (http-interface §2.7), newest first, and a rollback to one: asked
 * first, sent with `X-DD-Confirm-Action: container-rollback` (§4.1); its phases then show live above.
 * `revision` changes when an operation of the container settles, so a new backup is listed.
 */
export function BackupsSection({ c, revision, locked = false }: { c: Container; revision: string; locked?: boolean }) {
  const [backups, setBackups] = useState<Backup[] | undefined>();
  const [choosing, setChoosing] = useState<Backup | undefined>();
  const { busy, error, setError, run } = useAction();
  const [done, setDone] = useState<string | undefined>();

  useSectionRead(
    (signal) => detailApi.backups(c.id, signal),
    (page) => setBackups(page.data),
    setError,
    [c.id, revision],
  );

  async function rollback(backup: Backup) {
    await run(async () => {
      const started = await detailApi.rollback(c.id, backup.id);
      setDone(started.message);
      setChoosing(undefined);
      await seedOperation(started.operationId);
    });
    setChoosing(undefined);
  }

  return (
    <section class="card" aria-labelledby="backups">
      <h2 id="backups">Backups and rollback</h2>
      {backups?.length === 0 && <p>No backup yet: an update keeps the image it replaces.</p>}
      {backups && backups.length > 0 && (
        <ul class="plain rows">
          {backups.map((backup) => (
            <li key={backup.id} data-backup={backup.imageTag}>
              <span>
                <span class="mono break">
                  {backup.imageName}:{backup.imageTag}
                </span>{' '}
                {backup.imageDigest && <span class="mono muted">{shortDigest(backup.imageDigest)}</span>}{' '}
                <span class="muted" title={when(backup.timestamp)}>
                  {relative(backup.timestamp)}
                </span>
              </span>
              <button type="button" class="danger" disabled={busy || locked} onClick={() => setChoosing(backup)}>
                {moveLabel(backup, c)}…
              </button>
            </li>
          ))}
        </ul>
      )}
      {done && <p role="status">{done}</p>}
      <ErrorText message={error} />
      {choosing && (
        <ConfirmDialog
          title={
            backupDirection(choosing.imageTag, c.image.tag.value) === 'forward'
              ? `Return ${c.name} to ${choosing.imageTag}, a newer version?`
              : `Roll ${c.name} back to ${choosing.imageTag}?`
          }
          action={moveLabel(choosing, c)}
          busy={busy}
          onConfirm={() => rollback(choosing)}
          onCancel={() => setChoosing(undefined)}
        >
          <p>
            <span class="break">{c.name}</span> is re-created from{' '}
            <span class="mono break">
              {choosing.imageName}:{choosing.imageTag}
            </span>{' '}
            (kept {relative(choosing.timestamp)}), replacing <span class="mono break">{c.image.tag.value}</span>. It is
            stopped briefly.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
