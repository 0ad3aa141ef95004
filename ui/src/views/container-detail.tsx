import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, type Container } from '../api';
import { operationOf } from '../components/update-stepper';
import { navigate } from '../router';
import { containers, containersLoaded, putContainer } from '../state';
import { isSettled } from '../update-steps';
import { BackupsSection } from './container-detail/backups-section';
import { EnvSection } from './container-detail/env-section';
import { GroupSection } from './container-detail/group-section';
import { HistorySection } from './container-detail/history-section';
import { LabelsSection } from './container-detail/labels-section';
import { LogsSection } from './container-detail/logs-section';
import { PolicySection } from './container-detail/policy-section';
import { ReleaseNotesSection } from './container-detail/release-notes-section';
import { RuntimeActions } from './container-detail/runtime-actions';
import { SecuritySection } from './container-detail/security-section';
import { StatsSection } from './container-detail/stats-section';
import { TriggersSection } from './container-detail/triggers-section';
import { UpdateSection } from './container-detail/update-section';
import { useSectionRead } from './container-detail/use-section-read';
import { VersionsSection } from './container-detail/versions-section';

/**
 * One container, everything the API offers for it (http-interface §4.8): versions, the update and
 * its live phases, the update policy, triggers, backups and rollback, history, group, environment,
 * labels, logs and stats. Each part is a file in ./container-detail/.
 */
type Identity = Pick<Container, 'id' | 'name' | 'watcher' | 'agent'>;

/** The container that took this one's place: same name on the same host (an update or a rollback re-creates it). */
function successorOf(gone: Identity | undefined, fleet: ReadonlyMap<string, Container>): Container | undefined {
  if (!gone) return undefined;
  for (const candidate of fleet.values()) {
    if (
      candidate.id !== gone.id &&
      candidate.name === gone.name &&
      candidate.watcher === gone.watcher &&
      candidate.agent === gone.agent
    )
      return candidate;
  }
  return undefined;
}

export function ContainerDetail({ id }: { id: string }) {
  const found = containers.value.get(id);
  const lastSeen = useRef<Container | undefined>(undefined);
  // The name as first seen at this id: an update renames the old container (`<name>-old-<time>`)
  // before removing it, and the successor carries the original name, not the temporary one.
  const followed = useRef<Identity | undefined>(undefined);
  if (found) {
    lastSeen.current = found;
    if (followed.current?.id !== id) followed.current = found;
  } else if (lastSeen.current?.id !== id) {
    lastSeen.current = undefined;
    followed.current = undefined;
  }
  const successor = found ? undefined : successorOf(followed.current, containers.value);
  const [error, setError] = useState<string | undefined>();
  const [missing, setMissing] = useState(false);

  // Re-created under a new id: the page follows it, replacing the address (the old id is gone for good).
  useEffect(() => {
    if (successor) navigate(`/containers/${encodeURIComponent(successor.id)}`, true);
  }, [successor?.id]);

  // While it is being re-created, the last record stays on screen rather than "no longer exists".
  const container = found ?? lastSeen.current;
  // Not in the store (yet): ask for it once; a 404 means it is gone. Following a successor cancels it.
  useSectionRead(
    container || !containersLoaded.value ? undefined : (signal) => api.container(id, signal),
    putContainer,
    (message, failure) =>
      failure instanceof ApiError && failure.status === 404 ? setMissing(true) : setError(message),
    [id, containersLoaded.value],
  );

  if (!container) {
    return (
      <main id="main" tabIndex={-1}>
        <h1>Container</h1>
        <p role="status">{missing ? 'This container no longer exists.' : (error ?? 'Loading…')}</p>
        <a href="/containers">Back to containers</a>
      </main>
    );
  }
  const c = container;
  // An update re-creates the container (a new id, the same name): history and backups follow the operation.
  const name = followed.current?.name ?? c.name;
  const operation = operationOf({ agent: c.agent, watcher: c.watcher, name });
  const revision = operation ? `${operation.operationId}:${operation.status}` : 'none';
  return (
    <main id="main" tabIndex={-1} class="detail">
      <p>
        <a href="/containers">← Containers</a>
      </p>
      <h1 class="break">{c.name}</h1>
      {!found && (
        <p class="notice" role="status">
          This container is no longer listed (removed, or stopped where only running containers are watched); the page
          follows it if it is re-created, as an update does.
        </p>
      )}
      <UpdateSection c={c} name={name} />
      {found ? (
        <>
          <RuntimeActions c={c} locked={operation !== undefined && !isSettled(operation.status)} />
          <div class="detail-grid">
            <VersionsSection c={c} />
            <PolicySection c={c} />
            <SecuritySection c={c} key={`security${c.id}`} />
            <ReleaseNotesSection c={c} />
            <TriggersSection c={c} />
            <BackupsSection
              c={c}
              revision={revision}
              locked={operation !== undefined && !isSettled(operation.status)}
            />
            <HistorySection c={c} revision={revision} />
            <GroupSection c={c} />
            <StatsSection c={c} key={`stats${c.id}`} />
            <EnvSection c={c} key={`env${c.id}`} />
            <LabelsSection c={c} />
          </div>
          <LogsSection c={c} key={`logs${c.id}`} />
        </>
      ) : (
        // Gone from Docker: its routes would answer 404, so only what the record says is shown.
        <VersionsSection c={c} />
      )}
    </main>
  );
}
