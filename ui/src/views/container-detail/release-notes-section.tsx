import { useState } from 'preact/hooks';
import type { Container } from '../../api';
import { ErrorText } from '../../components/error-text';
import { ReleaseBody } from '../../components/release-body';
import { when } from '../../format-time';
import { detailApi, type ReleaseNotes } from './detail-api';
import { useSectionRead } from './use-section-read';

/** Long notes are cut here; the whole text is one link away. */
const SHOWN_CHARACTERS = 4_000;

/**
 * The release notes of the pending update (docs/release-notes.md), from the image's source
 * repository on GitHub or GitLab. The body is Markdown rendered through the sanitising tree of
 * markdown/release-markdown.ts: no raw HTML, no script, no image from another host.
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
          <ReleaseBody
            body={release.body.length > SHOWN_CHARACTERS ? `${release.body.slice(0, SHOWN_CHARACTERS)}…` : release.body}
            base={release.url && /^https?:\/\//i.test(release.url) ? release.url : null}
          />
          {release.url && /^https?:\/\//.test(release.url) && (
            <a href={release.url} rel="noopener noreferrer" target="_blank">
              The whole release
            </a>
          )}
        </>
      )}
      <ErrorText message={error} />
    </section>
  );
}
