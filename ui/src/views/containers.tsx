import { useEffect, useMemo } from 'preact/hooks';
import { loadActionTriggers } from '../action-triggers';
import { navigate, query } from '../router';
import { containerList, containers, containersLoaded, loadError } from '../state';
import { BulkBar, select, selection } from './containers/bulk-update';
import { loadColumns } from './containers/columns';
import { ColumnsMenu } from './containers/columns-menu';
import { ContainerTable } from './containers/container-table';
import './containers/containers-list.css';
import { ListFilters } from './containers/list-filters';
import {
  activeFilters,
  collapseRecreated,
  filterContainers,
  type ListQuery,
  listItems,
  listQueryPath,
  readListQuery,
} from './containers/list-query';
import { RowDialogs, rowMessage } from './containers/row-menu';

/** "Status: paused and Host: this hub": the filters that emptied the list, in words. */
function EmptyResult({ list, set }: { list: ListQuery; set: (change: Partial<ListQuery>) => void }) {
  const on = activeFilters(list);
  if (on.length === 0) return <p class="empty-result">No containers are watched yet.</p>;
  const words = on.map((filter) => `${filter.label}: ${filter.value}`);
  const named = words.length === 1 ? words[0] : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
  return (
    <div class="empty-result" data-field="empty-result">
      <p>No container matches {named}.</p>
      <button
        type="button"
        class="secondary"
        onClick={() => set({ q: '', watcher: '', agent: '', status: '', kind: '', maturity: '' })}
      >
        Clear the {on.length === 1 ? 'filter' : 'filters'}
      </button>
    </div>
  );
}

/**
 * The container list: a row per container (icon, display name, short image, version chip, age,
 * release link, a menu of actions), the columns a person chose, the filters and sorts of
 * http-interface §4.8 behind one filter bar, grouped by host or group, virtualised so a fleet of
 * 10,000 stays smooth, and a selection to update in bulk.
 */
export function Containers() {
  const search = query.value;
  const list = readListQuery(search);
  // An update's temporary `<name>-old-…` container is the container being updated: one row.
  const all = useMemo(() => collapseRecreated(containerList.value), [containerList.value]);
  // Filtering 10,000 records is a few milliseconds: done when the fleet or the address changes, never on scroll.
  const shown = useMemo(() => filterContainers(all, readListQuery(search)), [all, search]);
  const items = useMemo(() => listItems(shown, list.group), [shown, list.group]);
  const set = (change: Partial<ListQuery>) => navigate(listQueryPath({ ...list, ...change }), true);
  const chosen = selection.value;
  const selectedShown = shown.reduce((n, c) => (chosen.has(c.id) ? n + 1 : n), 0);
  useEffect(() => {
    loadColumns();
    // Whether a row menu offers Update… (a Docker action trigger covers the container).
    void loadActionTriggers();
    // What a row action said belongs to this visit of the list.
    return () => {
      rowMessage.value = undefined;
    };
  }, []);
  const message = rowMessage.value;

  return (
    <main id="main" tabIndex={-1} class="containers-view">
      <div class="list-head">
        <h1>Containers</h1>
        <p class="hint" aria-live="polite">
          {containersLoaded.value ? `${shown.length} of ${all.length} containers` : 'Loading containers…'}
        </p>
      </div>
      <ListFilters list={list} all={all} set={set} extra={<ColumnsMenu />} />
      {loadError.value && (
        <p class="error" role="alert">
          {loadError.value}
        </p>
      )}
      {message && (
        <p class={message.error ? 'error row-message' : 'row-message'} role={message.error ? 'alert' : 'status'}>
          {message.text}
        </p>
      )}
      <BulkBar byId={containers.value} />
      {containersLoaded.value && shown.length === 0 && <EmptyResult list={list} set={set} />}
      <ContainerTable
        items={items}
        selected={chosen}
        onSelect={(id, on) => select([id], on)}
        allShown={selectedShown === 0 ? 'none' : selectedShown === shown.length ? 'all' : 'some'}
        onSelectAll={(on) =>
          select(
            shown.map((c) => c.id),
            on,
          )
        }
      />
      <RowDialogs />
    </main>
  );
}
