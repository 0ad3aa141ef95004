import { useState } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import type { IntermediateReleaseNotes } from '../../../../shared/schemas/release-notes';
import { call } from '../../api';
import { ReleaseList } from '../../components/release-list';
import type { OperationView } from './detail-api';

/** The versions GET …/intermediate-release-notes accepts (the hub's release-version.ts). */
const SEMVER = /^[vV]?\d{1,9}\.\d{1,9}\.\d{1,9}(?:-[0-9A-Za-z.-]{1,100})?(?:\+[0-9A-Za-z.-]{1,100})?$/;

/** Whether a past update moved between two versions whose releases can be listed. */
export function hasReleaseRange(operation: OperationView): boolean {
  return (
    operation.status === 'succeeded' &&
    SEMVER.test(operation.fromVersion ?? '') &&
    SEMVER.test(operation.toVersion ?? '') &&
    operation.fromVersion !== operation.toVersion
  );
}

/**
 * The notes of every release a past update moved through. The operation keeps its `fromVersion` and
 * `toVersion`; the releases stay on the forge, so they are read (through the hub's cache) when the
 * person opens them, not stored twice.
 */
export function HistoryReleaseNotes({ containerId, operation }: { containerId: string; operation: OperationView }) {
  const [notes, setNotes] = useState<IntermediateReleaseNotes | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [asked, setAsked] = useState(false);
  const open = (event: Event) => {
    if (asked || !(event.currentTarget as HTMLDetailsElement).open) return;
    setAsked(true);
    const query = new URLSearchParams({ from: operation.fromVersion ?? '', to: operation.toVersion ?? '' });
    call<IntermediateReleaseNotes>(
      `/containers/${encodeURIComponent(containerId)}/intermediate-release-notes?${query}`,
    ).then(setNotes, (failure) => setError(errorMessage(failure)));
  };
  return (
    <details class="history-notes" onToggle={open}>
      <summary>Release notes</summary>
      {!notes && !error && asked && <p role="status">Reading the releases…</p>}
      {error && <p class="error">{error}</p>}
      {notes && notes.releases.length > 0 && <ReleaseList releases={notes.releases} />}
      {notes && notes.releases.length === 0 && <p>{notes.message}</p>}
    </details>
  );
}
