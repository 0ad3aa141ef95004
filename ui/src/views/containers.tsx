import { useMemo } from 'preact/hooks';
import { navigate, query } from '../router';
import { containerList, containers, containersLoaded, loadError } from '../state';
import { BulkBar, select, selection } from './containers/bulk-update';
import { ContainerTable } from './containers/container-table';
import { ListFilters } from './containers/list-filters';
import { filterContainers, type ListQuery, listItems, listQueryPath, readListQuery } from './containers/list-query';

/**
 * The container list: the filters and sorts of http-interface §4.8 over the live set, grouped by host
 * or group, virtualised so a fleet of 10,000 stays smooth, and a selection to update in bulk.
 */
export function Containers() {
  const search = query.value;
  const list = readListQuery(search);
  const all = containerList.value;
  // Filtering 10,000 records is a few milliseconds: done when the fleet or the address changes, never on scroll.
  const shown = useMemo(() => filterContainers(all, readListQuery(search)), [all, search]);
  const items = useMemo(() => listItems(shown, list.group), [shown, list.group]);
  const set = (change: Partial<ListQuery>) => navigate(listQueryPath({ ...list, ...change }), true);
  const chosen = selection.value;
  const selectedShown = shown.reduce((n, c) => (chosen.has(c.id) ? n + 1 : n), 0);

  return (
    <main id="main" tabIndex={-1}>
      <h1>Containers</h1>
      <ListFilters list={list} all={all} set={set} />
      {loadError.value && (
        <p class="error" role="alert">
          {loadError.value}
        </p>
      )}
      <p class="hint" aria-live="polite">
        {containersLoaded.value ? `${shown.length} of ${all.length} containers` : 'Loading containers…'}
      </p>
      <BulkBar byId={containers.value} />
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
    </main>
  );
}
