import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../shared/error-message';
import { api, type Container, call, type UpdatePreview } from '../api';
import { shortDigest } from '../format';
import { when } from '../format-time';
import { ErrorText } from './error-text';

/** One release of GET …/intermediate-release-notes (docs/release-notes.md). */
interface Release {
  tag: string;
  title: string;
  date: string | null;
  body: string;
  url: string | null;
}
interface IntermediateNotes {
  status: string;
  message: string;
  releases: Release[];
}
interface DeltaFinding {
  id: string;
  severity: string;
  package: string;
}
/** The preview's fields beyond what api.ts names: the backup, the security delta, the target's notes. */
type Preview = Omit<UpdatePreview, 'blockers' | 'current' | 'target'> & {
  triggerName: string | null;
  current: { image: string; tag: string; digest?: string | null };
  target?: { image: string; tag: string; digest?: string | null } | null;
  backup: { made: boolean; keep: number } | null;
  security?: { fixed: DeltaFinding[]; introduced: DeltaFinding[] };
  releaseNotes?: { status: string; message: string; release: Partial<Release> | null };
  blockers: { reason: string; message?: string; applies?: string }[];
};

/** Each release is cut here; the whole text is one link away. */
const SHOWN_CHARACTERS = 2_000;
/** The versions GET …/intermediate-release-notes accepts as `from`. */
const SEMVER = /^[vV]?\d{1,9}\.\d{1,9}\.\d{1,9}(?:-[0-9A-Za-z.-]{1,100})?(?:\+[0-9A-Za-z.-]{1,100})?$/;
const APPROVAL = new Set(['approval-required', 'approval-rejected']);

function ReleaseList({ releases }: { releases: Release[] }) {
  return (
    <ol class="plain releases">
      {releases.map((release) => (
        <li key={release.tag}>
          <p>
            <strong class="break">{release.title || release.tag}</strong>{' '}
            <span class="hint">
              {release.tag}
              {release.date && ` · ${when(release.date)}`}
            </span>
          </p>
          {release.body && (
            <pre class="release-body break">
              {release.body.length > SHOWN_CHARACTERS ? `${release.body.slice(0, SHOWN_CHARACTERS)}…` : release.body}
            </pre>
          )}
          {release.url && /^https?:\/\//.test(release.url) && (
            <a href={release.url} rel="noreferrer noopener" target="_blank">
              Release {release.tag} on its forge
            </a>
          )}
        </li>
      ))}
    </ol>
  );
}

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
  const [notes, setNotes] = useState<IntermediateNotes | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let current = true;
    api.preview(c.id).then(
      (answer) => current && setPreview(answer as Preview),
      (failure) => current && setError(errorMessage(failure)),
    );
    // Every release between the running version and the candidate; the route takes semver only (the
    // hub's release-version.ts), so another tag asks nothing and the preview's own notes stand.
    if (SEMVER.test(c.image.tag.value))
      call<IntermediateNotes>(
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
  const targetRelease = preview?.releaseNotes?.release;
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
          ) : targetRelease?.tag ? (
            <ReleaseList releases={[{ title: '', date: null, body: '', url: null, ...targetRelease } as Release]} />
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
