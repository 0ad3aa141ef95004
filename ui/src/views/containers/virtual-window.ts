/** The slice of a long list to render: the visible rows plus `overscan` on each side. */
export function visibleRange(
  scrollTop: number,
  viewport: number,
  rowHeight: number,
  count: number,
  overscan = 8,
): { start: number; end: number } {
  const first = Math.floor(scrollTop / rowHeight);
  const last = Math.ceil((scrollTop + viewport) / rowHeight);
  return { start: Math.max(0, first - overscan), end: Math.min(count, last + overscan) };
}

/** What to put in the table: runs of rows, and the gaps between them as spacers of so many rows. */
export type Segment = { type: 'gap'; rows: number } | { type: 'row'; index: number };

/**
 * The window's rows, and the focused row even when scrolled out of the window, so keyboard focus
 * is never lost to a row that is no longer in the document.
 */
export function segments(range: { start: number; end: number }, count: number, keep?: number): Segment[] {
  const indices: number[] = [];
  if (keep !== undefined && keep >= 0 && keep < range.start) indices.push(keep);
  for (let index = range.start; index < range.end; index++) indices.push(index);
  if (keep !== undefined && keep >= range.end && keep < count) indices.push(keep);
  const out: Segment[] = [];
  let next = 0;
  for (const index of indices) {
    if (index > next) out.push({ type: 'gap', rows: index - next });
    out.push({ type: 'row', index });
    next = index + 1;
  }
  if (count > next) out.push({ type: 'gap', rows: count - next });
  return out;
}
