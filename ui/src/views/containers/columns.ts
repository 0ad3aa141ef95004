import { signal } from '@preact/signals';
import { session } from '../../state';
import { preferencesApi } from '../../theme';

/** The list's optional columns, in their order on screen; the selection, name and row menu always show. */
export const COLUMNS = [
  { id: 'image', label: 'Image' },
  { id: 'tag', label: 'Tag' },
  { id: 'update', label: 'Update' },
  { id: 'published', label: 'Published' },
  { id: 'release', label: 'Release' },
  { id: 'host', label: 'Host' },
  { id: 'status', label: 'Status' },
] as const;
export type ColumnId = (typeof COLUMNS)[number]['id'];
const IDS: readonly string[] = COLUMNS.map((column) => column.id);
export const DEFAULT_COLUMNS: readonly ColumnId[] = COLUMNS.map((column) => column.id);

/** Beside the container's side panel the list is narrow: of the chosen columns, only these show. */
const BESIDE_PANEL: ReadonlySet<ColumnId> = new Set(['update', 'status']);

/** The columns to draw: the person's choice, narrowed while the list shares the screen with a container. */
export function columnsToShow(chosen: readonly ColumnId[], besidePanel: boolean): readonly ColumnId[] {
  return besidePanel ? chosen.filter((id) => BESIDE_PANEL.has(id)) : chosen;
}

/** The key in the synced preferences (http-interface §4.12) and in this browser's storage. */
export const PREFERENCE_KEY = 'containerColumns';
const KEPT = 'dockwatch.containerColumns';

/** A stored value read back: known ids only, in the columns' order; anything else is the default. */
export function readColumns(value: unknown): ColumnId[] {
  if (!Array.isArray(value)) return [...DEFAULT_COLUMNS];
  const chosen = new Set(value.filter((id): id is ColumnId => typeof id === 'string' && IDS.includes(id)));
  return COLUMNS.map((column) => column.id).filter((id) => chosen.has(id));
}

function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

function keptColumns(): ColumnId[] {
  const text = storage()?.getItem(KEPT);
  if (!text) return [...DEFAULT_COLUMNS];
  try {
    return readColumns(JSON.parse(text));
  } catch {
    return [...DEFAULT_COLUMNS];
  }
}

/** The columns shown: this browser's copy at once, then the synced preference once read. */
export const columns = signal<readonly ColumnId[]>(keptColumns());
let synced = false;

/** Anonymous access has no preferences on the hub (it answers 403): the choice then stays in this browser. */
const hasPreferences = () => session.value.state === 'signed-in' && !session.value.user.anonymous;

/** Reads the person's synced choice once per page load (the list calls it when it opens). */
export function loadColumns(): void {
  if (synced || !hasPreferences()) return;
  synced = true;
  preferencesApi.get().then(
    (preferences) => {
      if (preferences[PREFERENCE_KEY] === undefined) return;
      columns.value = readColumns(preferences[PREFERENCE_KEY]);
      storage()?.setItem(KEPT, JSON.stringify(columns.value));
    },
    () => {
      // Unreadable now: this browser's copy stays, and the next page load asks again.
      synced = false;
    },
  );
}

/** Shows or hides one column, kept in this browser and in the synced preferences. */
export async function setColumn(id: ColumnId, on: boolean): Promise<void> {
  const next = new Set(columns.value);
  if (on) next.add(id);
  else next.delete(id);
  columns.value = COLUMNS.map((column) => column.id).filter((column) => next.has(column));
  storage()?.setItem(KEPT, JSON.stringify(columns.value));
  if (hasPreferences()) await preferencesApi.put({ [PREFERENCE_KEY]: [...columns.value] });
}
