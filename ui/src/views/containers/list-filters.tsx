import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Container } from '../../api';
import {
  activeFilters,
  CONTAINER_KIND_FILTERS,
  CONTAINER_SORTS,
  CONTAINER_STATUS_FILTERS,
  type ListQuery,
  MATURITY_FILTERS,
  SOURCE_WORDS,
} from './list-query';

const distinct = (values: (string | undefined)[]) => [...new Set(values.filter((v): v is string => Boolean(v)))].sort();
const SORT_LABELS: Record<string, string> = {
  name: 'Name',
  '-name': 'Name, Z to A',
  status: 'Status',
  '-status': 'Status, descending',
  age: 'Oldest container first',
  '-age': 'Newest container first',
  created: 'Oldest image first',
  '-created': 'Newest image first',
};

interface Option {
  value: string;
  label: string;
}
const plain = (values: readonly string[]): Option[] => values.map((value) => ({ value, label: value }));

function Choice(props: {
  label: string;
  name: keyof ListQuery;
  value: string;
  all: string;
  options: Option[];
  set: (change: Partial<ListQuery>) => void;
}) {
  return (
    <label>
      {props.label}
      <select
        name={props.name}
        value={props.value}
        onChange={(e) => props.set({ [props.name]: (e.currentTarget as HTMLSelectElement).value })}
      >
        <option value="">{props.all}</option>
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The search box, the Filters button (with how many are on), the Columns menu; the rest folded below. */
export function ListFilters({
  list,
  all,
  set,
  extra,
}: {
  list: ListQuery;
  all: readonly Container[];
  set: (change: Partial<ListQuery>) => void;
  /** Controls beside the Filters button (the Columns menu). */
  extra?: ComponentChildren;
}) {
  const on = activeFilters(list).filter((filter) => filter.key !== 'q');
  const arranged = [list.sort, list.order, list.group].filter(Boolean).length;
  const [open, setOpen] = useState(false);
  return (
    <search>
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <div class="filter-bar">
          <label class="filter-search">
            <span class="visually-hidden">Search</span>
            <input
              type="search"
              name="q"
              value={list.q}
              placeholder="Search"
              onInput={(e) => set({ q: (e.currentTarget as HTMLInputElement).value })}
            />
          </label>
          <button
            type="button"
            class="secondary"
            aria-expanded={open}
            aria-controls="list-filter-panel"
            onClick={() => setOpen(!open)}
          >
            Filters{on.length + arranged > 0 ? ` (${on.length + arranged})` : ''}
          </button>
          {extra}
        </div>
        <div id="list-filter-panel" class="filter-panel" hidden={!open}>
          <FilterChoices list={list} all={all} set={set} />
        </div>
        <FilterChips list={list} set={set} />
      </form>
    </search>
  );
}

/** Each filter in force as a chip whose button removes it. */
function FilterChips({ list, set }: { list: ListQuery; set: (change: Partial<ListQuery>) => void }) {
  const on = activeFilters(list);
  if (on.length === 0) return null;
  return (
    <ul class="plain filter-chips" aria-label="Filters in force">
      {on.map((filter) => (
        <li key={filter.key} class="filter-chip" data-filter={filter.key}>
          <span>
            {filter.label}: {filter.value}
          </span>
          <button
            type="button"
            class="link"
            aria-label={`Remove the filter ${filter.label}: ${filter.value}`}
            onClick={() => set({ [filter.key]: '' })}
          >
            ✕
          </button>
        </li>
      ))}
    </ul>
  );
}

/** One select of the filters panel: its label, its key in the address, its "no choice" words, its options. */
interface ChoiceSpec {
  label: string;
  name: keyof ListQuery;
  all: string;
  options: (all: readonly Container[]) => Option[];
}

const CHOICES: readonly ChoiceSpec[] = [
  { label: 'Watcher', name: 'watcher', all: 'All', options: (all) => plain(distinct(all.map((c) => c.watcher))) },
  {
    // The types the fleet has (docker when a record names none): a Docker-only fleet offers one.
    label: 'Source',
    name: 'watcherType',
    all: 'All',
    options: (all) =>
      distinct(all.map((c) => c.watcherType ?? 'docker')).map((value) => ({
        value,
        label: SOURCE_WORDS[value as keyof typeof SOURCE_WORDS] ?? value,
      })),
  },
  {
    label: 'Host',
    name: 'agent',
    all: 'All',
    options: (all) => [{ value: '-', label: 'This hub' }, ...plain(distinct(all.map((c) => c.agent)))],
  },
  { label: 'Status', name: 'status', all: 'All', options: () => plain(CONTAINER_STATUS_FILTERS) },
  { label: 'Update kind', name: 'kind', all: 'Any', options: () => plain(CONTAINER_KIND_FILTERS) },
  { label: 'Maturity', name: 'maturity', all: 'Any', options: () => plain(MATURITY_FILTERS) },
  {
    label: 'Sort',
    name: 'sort',
    all: 'Name (default)',
    options: () => CONTAINER_SORTS.map((value) => ({ value, label: SORT_LABELS[value] ?? value })),
  },
  {
    label: 'Order',
    name: 'order',
    all: 'As sorted',
    options: () => [
      { value: 'asc', label: 'Ascending' },
      { value: 'desc', label: 'Descending' },
    ],
  },
  {
    label: 'Group by',
    name: 'group',
    all: 'No grouping',
    options: () => [
      { value: 'host', label: 'Agent (or this hub)' },
      { value: 'group', label: 'Group (dd.group or compose project)' },
    ],
  },
];

/** Every filter and sort of the list route (http-interface §4.8) and the grouping. */
function FilterChoices({
  list,
  all,
  set,
}: {
  list: ListQuery;
  all: readonly Container[];
  set: (change: Partial<ListQuery>) => void;
}) {
  return (
    <>
      {CHOICES.map((choice) => (
        <Choice
          key={choice.name}
          label={choice.label}
          name={choice.name}
          value={list[choice.name]}
          all={choice.all}
          options={choice.options(all)}
          set={set}
        />
      ))}
    </>
  );
}
