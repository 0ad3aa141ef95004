import type { JSX } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { operationKey, operations } from '../../state';
import { COLUMNS, columns, columnsToShow } from './columns';
import type { ListItem } from './list-query';
import { openInPanel } from './open-panel';
import { cellOf, NameCell } from './row-cells';
import { RowMenu } from './row-menu';
import { segments, visibleRange } from './virtual-window';

/** Until the first row is measured (the CSS fixes it: about 2.6rem on a wide screen, a card on a phone). */
const ROW_GUESS = 42;
const PAGE_KEYS: Record<string, (index: number, page: number, last: number) => number> = {
  ArrowDown: (i) => i + 1,
  ArrowUp: (i) => i - 1,
  PageDown: (i, page) => i + page,
  PageUp: (i, page) => i - page,
  Home: () => 0,
  End: (_i, _page, last) => last,
};

interface ContainerTableProps {
  items: readonly ListItem[];
  selected: ReadonlySet<string>;
  onSelect: (id: string, on: boolean) => void;
  /** Every shown container selected, none, or some (the header box is then mixed). */
  allShown: 'all' | 'none' | 'some';
  onSelectAll: (on: boolean) => void;
}

/**
 * The list as one table whose rows are virtual: only the rows in view (and a few around them) are
 * in the document, between two spacers as tall as the rows they stand for, so 10,000 containers
 * scroll as smoothly as 10. Screen readers still learn the size and each row's place
 * (`aria-rowcount`, `aria-rowindex`); arrow keys, Page Up/Down, Home and End move focus from row
 * to row, scrolling as they go, and the focused row stays rendered when scrolled away.
 */
export function ContainerTable({ items, selected, onSelect, allShown, onSelectAll }: ContainerTableProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(800);
  const [rowHeight, setRowHeight] = useState(ROW_GUESS);
  const [focusKey, setFocusKey] = useState<string | undefined>(undefined);
  const pendingFocus = useRef<string | undefined>(undefined);

  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    // The box grows with its rows up to its maximum: its height is known only once they are in.
    const observer = new ResizeObserver(() => setViewport(element.clientHeight || 800));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // Rows have a fixed height in the CSS; measuring the first one follows the font size and the layout (cards on a phone).
  useLayoutEffect(() => {
    // The last row rendered: the table's first shares its top border with the header (collapsed
    // borders) and measures half a pixel less, which over 10,000 rows would misplace the window.
    const rendered = scroller.current?.querySelectorAll<HTMLElement>('tbody tr[data-key]');
    const row = rendered?.[rendered.length - 1];
    const height = row?.getBoundingClientRect().height;
    if (height && Math.abs(height - rowHeight) > 0.5) setRowHeight(height);
    if (pendingFocus.current) {
      const key = pendingFocus.current;
      pendingFocus.current = undefined;
      const target = scroller.current?.querySelector<HTMLElement>(`tr[data-key="${CSS.escape(key)}"] [data-nav]`);
      target?.focus({ preventScroll: true });
    }
  });

  const focusIndex = focusKey === undefined ? -1 : items.findIndex((item) => item.key === focusKey);
  const range = visibleRange(scrollTop, viewport, rowHeight, items.length);
  const parts = segments(range, items.length, focusIndex >= 0 ? focusIndex : undefined);

  const shown = columnsToShow(columns.value, openInPanel() !== undefined);
  const span = shown.length + 3;
  const running = operations.value;
  const onKeyDown = (event: KeyboardEvent) => {
    // Arrow keys inside a row's menu or a cell's control are theirs, not the list's.
    if ((event.target as Element).closest('.row-menu')) return;
    const move = PAGE_KEYS[event.key];
    if (!move || focusIndex < 0 || !scroller.current) return;
    const page = Math.max(1, Math.floor(viewport / rowHeight) - 1);
    const next = Math.max(0, Math.min(items.length - 1, move(focusIndex, page, items.length - 1)));
    const item = items[next];
    if (!item) return;
    event.preventDefault();
    const element = scroller.current;
    const header = element.querySelector('thead')?.getBoundingClientRect().height ?? 0;
    const top = next * rowHeight;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + rowHeight > element.scrollTop + element.clientHeight - header)
      element.scrollTop = top + rowHeight - element.clientHeight + header;
    setScrollTop(element.scrollTop);
    setFocusKey(item.key);
    pendingFocus.current = item.key;
  };
  const onFocusIn = (event: FocusEvent) => {
    const key = (event.target as Element).closest('tr')?.getAttribute('data-key');
    if (key) setFocusKey(key);
  };
  const onFocusOut = (event: FocusEvent) => {
    const next = event.relatedTarget as Node | null;
    if (!next || !scroller.current?.contains(next)) setFocusKey(undefined);
  };

  const row = (item: ListItem, index: number): JSX.Element => {
    if (item.type === 'group')
      return (
        <tr key={item.key} data-key={item.key} class="vrow group-row" aria-rowindex={index + 2}>
          <th colSpan={span} scope="colgroup" tabIndex={-1} data-nav>
            {item.label}{' '}
            <span class="hint">
              {item.count} {item.count === 1 ? 'container' : 'containers'}, {item.updates}{' '}
              {item.updates === 1 ? 'update' : 'updates'}
            </span>
          </th>
        </tr>
      );
    const c = item.container;
    return (
      <tr key={item.key} data-key={item.key} data-id={c.id} class="vrow" aria-rowindex={index + 2}>
        <td data-label="Select" class="select">
          <input
            type="checkbox"
            aria-label={`Select ${c.name}`}
            checked={selected.has(c.id)}
            onChange={(e) => onSelect(c.id, (e.currentTarget as HTMLInputElement).checked)}
          />
        </td>
        <td data-label="Name" class="name">
          <NameCell c={c} updating={running.get(operationKey(c))?.status === 'in-progress'} />
        </td>
        {shown.map((id) => cellOf(id, c))}
        <td data-label="Actions" class="actions-cell">
          <RowMenu c={c} />
        </td>
      </tr>
    );
  };

  return (
    <div class="vscroll" ref={scroller} onScroll={(e) => setScrollTop((e.currentTarget as HTMLElement).scrollTop)}>
      <table class="list vlist" aria-rowcount={items.length + 1}>
        <caption class="visually-hidden">Containers</caption>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col" class="select">
              <input
                type="checkbox"
                aria-label="Select all shown"
                checked={allShown === 'all'}
                indeterminate={allShown === 'some'}
                onChange={(e) => onSelectAll((e.currentTarget as HTMLInputElement).checked)}
              />
            </th>
            <th scope="col" class="name">
              Name
            </th>
            {COLUMNS.filter((column) => shown.includes(column.id)).map((column) => (
              <th scope="col" key={column.id} class={`col-${column.id}`}>
                {column.label}
              </th>
            ))}
            <th scope="col" class="actions-cell">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody onKeyDown={onKeyDown} onFocusIn={onFocusIn} onFocusOut={onFocusOut}>
          {parts.map((part, ordinal) => {
            if (part.type === 'row') {
              const item = items[part.index];
              return item ? row(item, part.index) : null;
            }
            return (
              // biome-ignore lint/a11y/noAriaHiddenOnFocusable: a spacer holds nothing focusable; hidden so it is not counted as a row
              <tr key={`gap-${ordinal}`} class="spacer" aria-hidden="true">
                <td colSpan={span} style={{ height: `${part.rows * rowHeight}px` }} />
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
