import { useState } from 'preact/hooks';
import type { Container } from '../../api';
import { ErrorText } from '../../components/error-text';
import { when } from '../../format-time';
import { detailApi, type ReleaseNotes } from './detail-api';
import { useSectionRead } from './use-section-read';

/** Long notes are cut here; the whole text is one link away. */
const SHOWN_CHARACTERS = 4_000;

/**
 * The release notes of the pending update (docs/release-notes.md), from the image's source
 * repository on GitHub or GitLab. The body is Markdown shown as text: nothing in it is rendered as
 * markup, so a hostile release cannot inject into the page.
 */
export function ReleaseNotesSection({ c }: { c: Container }) {
  const [notes, setNotes] = useState<ReleaseNotes | undefined>();
  const [error, setError] = useState<string | undefined>();
  const target = c.result?.tag;
  useSectionRead(c.updateAvailable ? (signal) => detailApi.releaseNotes(c.id, signal) : undefined, setNotes, setError, [
    c.id,
    target,
  ]);
  if (!c.updateAvailable) return null;
  const release = notes?.release;
  return (
    <section class="card" aria-labelledby="release-notes">
      <h2 id="release-notes">Release notes</h2>
      {notes && !release && <p>{notes.message}</p>}
      {release && (
        <>
          <p>
            <strong class="break">{release.title}</strong>{' '}
            <span class="hint">
              {release.tag}
              {release.date && ` · ${when(release.date)}`}
            </span>
          </p>
          <pre class="release-body break">
            {release.body.length > SHOWN_CHARACTERS ? `${release.body.slice(0, SHOWN_CHARACTERS)}…` : release.body}
          </pre>
          {release.url && /^https?:\/\//.test(release.url) && (
            <a href={release.url} rel="noreferrer noopener" target="_blank">
              The whole release
            </a>
          )}
        </>
      )}
      <ErrorText message={error} />
    </section>
  );
}
