import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { Container } from '../../api';
import { ContainerIcon } from '../../components/container-icon';
import { hostLabelOf, shortDigest, updateKindOf } from '../../format';
import { ageWords, when } from '../../format-time';
import { displayNameOf } from '../dashboard/attention';
import type { ColumnId } from './columns';
import { containerHref, openInPanel } from './open-panel';
import { fullReference, shortImage } from './row-words';

const KIND_WORDS: Record<string, string> = {
  major: 'major',
  minor: 'minor',
  patch: 'patch',
  digest: 'new build',
  prerelease: 'pre-release',
};
const BLOCKER_WORDS: Record<string, string> = {
  skipped: 'skipped',
  snoozed: 'snoozed',
  'maturity-not-reached': 'held',
};

/** `current → candidate`, coloured by kind, the kind in words too (colour is never the only sign). */
export function ListVersionChip({ c }: { c: Container }) {
  const kind = updateKindOf(c);
  const digest = c.updateKind.kind === 'digest';
  const from = digest && c.updateKind.kind === 'digest' ? shortDigest(c.updateKind.localValue) : c.image.tag.value;
  const to =
    c.updateKind.kind === 'tag'
      ? c.updateKind.remoteValue
      : c.updateKind.kind === 'digest'
        ? shortDigest(c.updateKind.remoteValue)
        : (c.result?.tag ?? '');
  return (
    <span class={`badge chip ${kind}`} data-field="version-chip">
      <span class="chip-kind">{KIND_WORDS[kind] ?? 'update'}</span> <span class="mono">{from}</span> →{' '}
      <span class="mono">{to}</span>
    </span>
  );
}

function UpdateCell({ c }: { c: Container }) {
  if (!c.updateAvailable) return <span class="hint">up to date</span>;
  const held = (c.blockers ?? []).map((b) => BLOCKER_WORDS[b.reason] ?? b.reason);
  const snooze = c.blockers?.find((b) => b.reason === 'snoozed')?.liftableAt;
  return (
    <>
      <ListVersionChip c={c} />
      {held.length > 0 && (
        <span class="hint" data-field="held" title={snooze ? `snoozed until ${when(snooze)}` : undefined}>
          {' '}
          {held.join(', ')}
        </span>
      )}
    </>
  );
}

/** Copies the full reference; the button says it did, for the eye and (as a status) for a screen reader. */
function CopyReference({ value, name }: { value: string; name: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="link copy-ref"
      aria-label={copied ? `Copied the image of ${name}` : `Copy the image of ${name}`}
      title={`Copy ${value}`}
      onClick={() =>
        navigator.clipboard.writeText(value).then(
          () => setCopied(true),
          () => setCopied(false),
        )
      }
    >
      {copied ? 'copied' : 'copy'}
    </button>
  );
}

const safeLink = (href: string | undefined) => (href && /^https?:\/\//i.test(href) ? href : undefined);

/** The icon, the display name (the container's name beside it when they differ). */
export function NameCell({ c, updating }: { c: Container; updating: boolean }) {
  const name = displayNameOf(c);
  return (
    <span class="name-cell">
      <ContainerIcon c={c} />
      <span class="name-words">
        <a href={containerHref(c.id)} aria-current={openInPanel() === c.id ? 'page' : undefined} data-nav>
          {name}
        </a>
        {name !== c.name && <span class="hint"> {c.name}</span>}
        {updating && <span class="badge pending"> updating</span>}
      </span>
    </span>
  );
}

/** One optional column's cell: its `data-label` names it on a phone card and for the tests. */
export function cellOf(id: ColumnId, c: Container): JSX.Element {
  switch (id) {
    case 'image': {
      const reference = fullReference(c);
      return (
        <td data-label="Image" key={id}>
          <span class="image-cell">
            <span class="mono" title={reference}>
              {shortImage(c)}
            </span>{' '}
            <CopyReference value={reference} name={displayNameOf(c)} />
          </span>
        </td>
      );
    }
    case 'tag':
      return (
        <td data-label="Tag" class="mono" key={id}>
          {c.image.tag.value}
        </td>
      );
    case 'update':
      return (
        <td data-label="Update" key={id}>
          <UpdateCell c={c} />
        </td>
      );
    case 'published': {
      const published = c.updateAvailable ? c.result?.publishedAt : undefined;
      return (
        <td data-label="Published" key={id}>
          {published ? <span title={`published ${when(published)}`}>{ageWords(published)}</span> : '—'}
        </td>
      );
    }
    case 'release': {
      const href = safeLink(c.result?.link);
      return (
        <td data-label="Release" key={id}>
          {href ? (
            <a href={href} target="_blank" rel="noopener noreferrer">
              {c.result?.tag ? `Release ${c.result.tag}` : 'Release'}
            </a>
          ) : (
            '—'
          )}
        </td>
      );
    }
    case 'host':
      return (
        <td data-label="Host" key={id}>
          <span>
            {hostLabelOf(c)} <span class="hint">({c.watcher})</span>
          </span>
        </td>
      );
    case 'status':
      return (
        <td data-label="Status" key={id}>
          <span class={`status ${c.status}`}>{c.status}</span>
        </td>
      );
  }
}
