import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, type Container } from '../api';
import { Fold } from '../components/fold';
import { operationOf } from '../components/update-stepper';
import { navigate, query } from '../router';
import { isNarrowScreen } from '../screen-width';
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
import { withOpen, withoutOpen } from './containers/open-panel';

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

/** A dialog or a popover menu is open (`:popover-open` is unknown to older browsers: asked apart). */
function overlayOpen(): boolean {
  if (document.querySelector('dialog[open]')) return true;
  try {
    return document.querySelector(':popover-open') !== null;
  } catch {
    return false;
  }
}

/**
 * While the panel is open: focus moves into it as each container opens there, and Escape anywhere
 * closes it (unless a dialog or a menu is open: Escape is theirs then), focus going back to the
 * container's row in the list.
 */
function usePanelKeys(panel: boolean, back: string, id: string): void {
  useEffect(() => {
    if (!panel) return;
    document.getElementById('panel')?.focus({ preventScroll: true });
  }, [panel, id]);
  useEffect(() => {
    if (!panel) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented || overlayOpen()) return;
      navigate(back);
      requestAnimationFrame(() =>
        document.querySelector<HTMLElement>(`tr[data-id="${CSS.escape(id)}"] [data-nav]`)?.focus(),
      );
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [panel, back, id]);
}

/**
 * Where the container is shown: beside the list on a wide screen (an `aside` the list stays next to,
 * closed back to the list with its filters, Escape too), else as the page's main content. A
 * component of its own, not one made in ContainerDetail's render: a new one each render would
 * mount every section again.
 */
function DetailFrame({
  id,
  panel,
  label,
  children,
}: {
  id: string;
  panel: boolean;
  label: string;
  children: ComponentChildren;
}) {
  const back = withoutOpen();
  usePanelKeys(panel, back, id);
  if (!panel)
    return (
      <main id="main" tabIndex={-1} class="detail">
        <p>
          <a href={back}>← Containers</a>
        </p>
        {children}
      </main>
    );
  return (
    <aside id="panel" class="side-panel detail" tabIndex={-1} aria-label={label}>
      <p>
        <a href={back}>Close</a>
      </p>
      {children}
    </aside>
  );
}

/** `panel`: shown beside the list (DetailFrame). */
export function ContainerDetail({ id, panel = false }: { id: string; panel?: boolean }) {
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
    if (successor)
      navigate(panel ? withOpen(successor.id) : `/containers/${encodeURIComponent(successor.id)}${query.value}`, true);
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
      <DetailFrame id={id} panel={panel} label="Container">
        <h1>Container</h1>
        <p role="status">{missing ? 'This container no longer exists.' : (error ?? 'Loading…')}</p>
      </DetailFrame>
    );
  }
  const c = container;
  // An update re-creates the container (a new id, the same name): history and backups follow the operation.
  const name = followed.current?.name ?? c.name;
  const operation = operationOf({ agent: c.agent, watcher: c.watcher, name });
  const revision = operation ? `${operation.operationId}:${operation.status}` : 'none';
  const locked = operation !== undefined && !isSettled(operation.status);
  // On a phone what is read less often is folded (and read only once opened): the page is a third as long.
  const folded = !panel && isNarrowScreen();
  return (
    <DetailFrame id={id} panel={panel} label={`Container ${c.name}`}>
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
          <RuntimeActions c={c} locked={locked} />
          <div class="detail-grid">
            <VersionsSection c={c} />
            <PolicySection c={c} />
            <SecuritySection c={c} key={`security${c.id}`} />
            <ReleaseNotesSection c={c} />
            <Fold title="Triggers" folded={folded}>
              <TriggersSection c={c} />
            </Fold>
            <Fold title="Backups" folded={folded}>
              <BackupsSection c={c} revision={revision} locked={locked} />
            </Fold>
            <Fold title="History" folded={folded}>
              <HistorySection c={c} revision={revision} />
            </Fold>
            <Fold title="Group" folded={folded}>
              <GroupSection c={c} />
            </Fold>
            <Fold title="Live stats" folded={folded}>
              <StatsSection c={c} key={`stats${c.id}`} />
            </Fold>
            <Fold title="Environment" folded={folded}>
              <EnvSection c={c} key={`env${c.id}`} />
            </Fold>
            <Fold title="Labels" folded={folded}>
              <LabelsSection c={c} />
            </Fold>
          </div>
          <Fold title="Logs" folded={folded}>
            <LogsSection c={c} key={`logs${c.id}`} />
          </Fold>
        </>
      ) : (
        // Gone from Docker: its routes would answer 404, so only what the record says is shown.
        <VersionsSection c={c} />
      )}
    </DetailFrame>
  );
}
