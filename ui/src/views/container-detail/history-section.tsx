import { useState } from 'preact/hooks';
import type { Container } from '../../api';
import { ErrorText } from '../../components/error-text';
import { relative, when } from '../../format-time';
import { detailApi, type OperationView } from './detail-api';
import { HistoryReleaseNotes, hasReleaseRange } from './history-release-notes';
import { useSectionRead } from './use-section-read';

/** The container's update operations, newest first (http-interface §2.6, §4.8), reloaded as one settles. */
export function HistorySection({ c, revision }: { c: Container; revision: string }) {
  const [history, setHistory] = useState<OperationView[] | undefined>();
  const [error, setError] = useState<string | undefined>();

  useSectionRead(
    (signal) => detailApi.operations(c.id, signal),
    (page) => setHistory(page.data),
    setError,
    [c.id, revision],
  );

  return (
    <section class="card" aria-labelledby="history">
      <h2 id="history">Operation history</h2>
      {history?.length === 0 && <p>No update has run for this container.</p>}
      {history && history.length > 0 && (
        <div class="table-scroll">
          <table class="history">
            <caption class="visually-hidden">Update operations of {c.name}, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">What</th>
                <th scope="col">From → to</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {history.map((operation) => (
                <tr key={operation.id} data-status={operation.status}>
                  <td title={when(operation.createdAt)}>{relative(operation.createdAt)}</td>
                  <td>
                    {operation.kind} ({operation.source})
                  </td>
                  <td class="mono break">
                    {operation.fromVersion ?? '?'} → {operation.toVersion ?? operation.targetImage}
                    {hasReleaseRange(operation) && <HistoryReleaseNotes containerId={c.id} operation={operation} />}
                  </td>
                  <td class="break">
                    {operation.status}
                    {operation.status !== 'succeeded' && ` at ${operation.phase}`}
                    {(operation.rollbackReason ?? operation.lastError) &&
                      `: ${operation.rollbackReason ?? operation.lastError}`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ErrorText message={error} />
    </section>
  );
}
