import type { Container } from '../../api';
import { candidateOf, hostLabelOf, imageName, shortDigest, updateKindOf } from '../../format';
import { relative, when } from '../../format-time';
import { SOURCE_WORDS } from '../../source-words';

/** Only http(s) links are followed: a label-made template could otherwise produce `javascript:`. */
function safeLink(link: string | undefined): string | undefined {
  if (!link) return undefined;
  try {
    const url = new URL(link);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** What runs against what could (http-interface §2.4): tags, digests, publication date, maturity, link. */
export function VersionsSection({ c }: { c: Container }) {
  const link = safeLink(c.result?.link);
  const publishedAt = c.result?.publishedAt;
  return (
    <section class="card" aria-labelledby="versions">
      <h2 id="versions">Versions</h2>
      <dl class="grid">
        <dt>Image</dt>
        <dd class="mono break">{imageName(c)}</dd>
        <dt>Running tag</dt>
        <dd class="mono break" data-field="running-tag">
          {c.image.tag.value}
        </dd>
        <dt>Running digest</dt>
        <dd class="mono" title={c.image.digest.value}>
          {shortDigest(c.image.digest.value) || 'unknown'}
        </dd>
        <dt>Candidate</dt>
        <dd class="mono break" data-field="candidate">
          {c.updateAvailable ? `${candidateOf(c)} (${updateKindOf(c)})` : 'none: up to date'}
        </dd>
        {c.result?.digest && (
          <>
            <dt>Candidate digest</dt>
            <dd class="mono" title={c.result.digest}>
              {shortDigest(c.result.digest)}
            </dd>
          </>
        )}
        {c.updateAvailable && (
          <>
            <dt>Published</dt>
            <dd title={publishedAt}>
              {publishedAt ? `${when(publishedAt)} (${relative(publishedAt)})` : 'unknown'}
              {publishedAt && !c.result?.publishedAtTrusted && ' · date not from a trusted source'}
            </dd>
            <dt>Maturity</dt>
            <dd data-field="maturity">{c.updateMaturityLevel ?? 'held by the maturity gate'}</dd>
          </>
        )}
        {link && (
          <>
            <dt>Link</dt>
            <dd class="break">
              <a href={link} target="_blank" rel="noopener noreferrer">
                {link}
              </a>
            </dd>
          </>
        )}
        <dt>Status</dt>
        <dd>
          <span class={`status ${c.status}`}>{c.status}</span>
          {c.health && ` (${c.health})`}
        </dd>
        <dt>Host</dt>
        <dd class="break">
          {hostLabelOf(c)} · watcher {c.watcher}
          {c.watcherType && ` (${SOURCE_WORDS[c.watcherType]})`}
        </dd>
        <dt>Last checked</dt>
        <dd>{c.checkedAt ? relative(c.checkedAt) : 'never'}</dd>
        {c.error && (
          <>
            <dt>Last check failed</dt>
            <dd class="error break">{c.error.message}</dd>
          </>
        )}
      </dl>
    </section>
  );
}
