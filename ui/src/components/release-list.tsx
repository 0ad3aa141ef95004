import type { Release } from '../../../shared/schemas/release-notes';
import { when } from '../format-time';
import { ReleaseBody } from './release-body';

/** A release's fields the list shows; the preview's target release may lack some. */
export type ListedRelease = Pick<Release, 'tag' | 'title' | 'date' | 'body' | 'url'>;

/** Each release is cut here; the whole text is one link away. */
const SHOWN_CHARACTERS = 4_000;

/** Releases, oldest first, each with its notes rendered as sanitised Markdown (docs/release-notes.md). */
export function ReleaseList({ releases }: { releases: ListedRelease[] }) {
  return (
    <ol class="plain releases">
      {releases.map((release) => {
        const url = release.url && /^https?:\/\//i.test(release.url) ? release.url : null;
        return (
          <li key={release.tag} data-release={release.tag}>
            <p>
              <strong class="break">{release.title || release.tag}</strong>{' '}
              <span class="hint">
                {release.tag}
                {release.date && ` · ${when(release.date)}`}
              </span>
            </p>
            {release.body && (
              <ReleaseBody
                body={
                  release.body.length > SHOWN_CHARACTERS ? `${release.body.slice(0, SHOWN_CHARACTERS)}…` : release.body
                }
                base={url}
              />
            )}
            {url && (
              <a href={url} rel="noopener noreferrer" target="_blank">
                Release {release.tag} on its forge
              </a>
            )}
          </li>
        );
      })}
    </ol>
  );
}
