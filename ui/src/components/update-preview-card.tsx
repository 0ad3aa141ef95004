import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../shared/error-message';
import type { ScanDelta } from '../../../shared/schemas/container-scan';
import type { IntermediateReleaseNotes } from '../../../shared/schemas/release-notes';
import { api, type Container, call, type UpdatePreview } from '../api';
import { shortDigest } from '../format';
import { ErrorText } from './error-text';
import { type ListedRelease, ReleaseList } from './release-list';

/** The security delta of a scanned candidate; the preview does not carry it yet, so it reads "not known". */
type Preview = UpdatePreview & { security?: ScanDelta };

/** The versions GET …/intermediate-release-notes accepts as `from`. */
const SEMVER = /^[vV]?\d{1,9}\.\d{1,9}\.\d{1,9}(?:-[0-9A-Za-z.-]{1,100})?(?:\+[0-9A-Za-z.-]{1,100})?$/;
const APPROVAL = new Set(['approval-required', 'approval-rejected']);

/** "fixes 3 (1 critical) · introduces none", from the delta of a scanned candidate. */
function SecurityLine({ delta }: { delta: Preview['security'] }) {
  if (!delta) return <>not known: the candidate has not been scanned</>;
  const severe = delta.fixed.filter((f) => f.severity === 'critical' || f.severity === 'high').length;
  return (
    <>
      fixes {delta.fixed.length === 0 ? 'no known vulnerability' : `${delta.fixed.length}`}
      {severe > 0 && ` (${severe} critical or high)`}, introduces{' '}
      {delta.introduced.length === 0 ? 'none' : delta.introduced.length}
    </>
  );
}

/** The preview's target release (a record in the schema, a release of GET …/release-notes), read field by field. */
function listedRelease(release: Record<string, unknown> | null | undefined): ListedRelease | undefined {
  const text = (key: string) => (typeof release?.[key] === 'string' ? (release[key] as string) : null);
  const tag = text('tag');
  if (!tag) return undefined;
  return { tag, title: text('title') ?? '', date: text('date'), body: text('body') ?? '', url: text('url') };
}

/**
 * The preview before an update (POST …/preview, http-interface §4.8): what changes and what stays,
 * the release notes of every version it moves past, the security delta, the trigger that runs it
 * and whether it needs approval first; then "Start the update".
 */
export function UpdatePreviewCard({
  c,
  onStart,
  onClose,
  starting,
}: {
  c: Container;
  onStart: () => void;
  onClose: () => void;
  starting: boolean;
}) {
  const [preview, setPreview] = useState<Preview | undefined>();
  const [notes, setNotes] = useState<IntermediateReleaseNotes | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let current = true;
    api.preview(c.id).then(
      (answer) => current && setPreview(answer),
      (failure) => current && setError(errorMessage(failure)),
    );
    // Every release between the running version and the candidate; the route takes semver only (the
    // hub's release-version.ts), so another tag asks nothing and the preview's own notes stand.
    if (SEMVER.test(c.image.tag.value))
      call<IntermediateReleaseNotes>(
        `/containers/${encodeURIComponent(c.id)}/intermediate-release-notes?from=${encodeURIComponent(c.image.tag.value)}`,
      ).then(
        (answer) => current && setNotes(answer),
        () => undefined,
      );
    return () => {
      current = false;
    };
  }, [c.id]);

  const headingId = `preview-${c.id}`;
  const target = preview?.target;
  const approval = preview?.blockers.find((blocker) => APPROVAL.has(blocker.reason));
  const others = preview?.blockers.filter((blocker) => blocker !== approval && blocker.applies !== 'auto') ?? [];
  const targetRelease = listedRelease(preview?.releaseNotes?.release);
  return (
    <section class="card preview" aria-labelledby={headingId}>
      <h2 id={headingId} class="break">
        Update {c.displayName || c.name}?
      </h2>
      <ErrorText message={error} />
      {!preview && !error && <p role="status">Reading what the update would change…</p>}
      {preview && (
        <>
          <dl class="grid" data-field="preview">
            <dt>Image</dt>
            <dd class="break">
              <code>{preview.current.image}</code> → <code>{target?.image ?? 'the candidate'}</code>
            </dd>
            {(preview.current.digest || target?.digest) && (
              <>
                <dt>Digest</dt>
                <dd class="mono">
                  {shortDigest(preview.current.digest ?? undefined) || 'unknown'} →{' '}
                  {shortDigest(target?.digest ?? undefined) || 'read at pull'}
                </dd>
              </>
            )}
            <dt>Kept</dt>
            <dd>
              ports, volumes, networks, environment and labels: the new container is created with the same settings
            </dd>
            <dt>Security</dt>
            <dd data-field="preview-security">
              <SecurityLine delta={preview.security} />
            </dd>
            <dt>Runs</dt>
            <dd>
              {preview.triggerName ? (
                <>
                  the Docker action trigger <code>{preview.triggerName}</code>
                  {preview.backup?.made &&
                    `, keeping a backup of the running image (the ${preview.backup.keep} newest are kept)`}
                </>
              ) : (
                'no Docker action trigger is configured for this container'
              )}
            </dd>
            <dt>Approval</dt>
            <dd data-field="preview-approval">
              {approval ? (
                <>
                  {approval.message ?? 'needed first'} (<a href="/approvals">Approvals</a>)
                </>
              ) : (
                'not needed'
              )}
            </dd>
          </dl>
          {others.length > 0 && (
            <>
              <p>It cannot run now:</p>
              <ul>
                {others.map((blocker) => (
                  <li key={blocker.reason} class="break">
                    {blocker.message ?? blocker.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
          <h3>Release notes</h3>
          {notes && notes.releases.length > 0 ? (
            <ReleaseList releases={notes.releases} />
          ) : targetRelease ? (
            <ReleaseList releases={[targetRelease]} />
          ) : (
            <p>{notes?.message ?? preview.releaseNotes?.message ?? 'None found.'}</p>
          )}
        </>
      )}
      <div class="actions">
        <button type="button" disabled={!preview?.canUpdate || starting} onClick={onStart}>
          {starting ? 'Starting…' : 'Start the update'}
        </button>
        <button type="button" class="secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </section>
  );
}
