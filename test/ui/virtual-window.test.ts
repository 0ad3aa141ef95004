import { describe, expect, it } from 'vitest';
import { segments, visibleRange } from '../../ui/src/views/containers/virtual-window';

describe('visibleRange', () => {
  it('is the rows in view plus the overscan, clamped to the list', () => {
    expect(visibleRange(0, 400, 40, 10_000, 5)).toEqual({ start: 0, end: 15 });
    expect(visibleRange(4_000, 400, 40, 10_000, 5)).toEqual({ start: 95, end: 115 });
    expect(visibleRange(399_600, 400, 40, 10_000, 5)).toEqual({ start: 9_985, end: 10_000 });
  });
});

describe('segments', () => {
  it('puts spacers for the rows not rendered, before and after the window', () => {
    expect(segments({ start: 2, end: 4 }, 6)).toEqual([
      { type: 'gap', rows: 2 },
      { type: 'row', index: 2 },
      { type: 'row', index: 3 },
      { type: 'gap', rows: 2 },
    ]);
  });

  it('keeps the focused row rendered outside the window, with spacers on each side of it', () => {
    expect(segments({ start: 5, end: 6 }, 10, 1)).toEqual([
      { type: 'gap', rows: 1 },
      { type: 'row', index: 1 },
      { type: 'gap', rows: 3 },
      { type: 'row', index: 5 },
      { type: 'gap', rows: 4 },
    ]);
    expect(segments({ start: 0, end: 2 }, 4, 3)).toEqual([
      { type: 'row', index: 0 },
      { type: 'row', index: 1 },
      { type: 'gap', rows: 1 },
      { type: 'row', index: 3 },
    ]);
  });

  it('renders the focused row once when it is in the window, and nothing for an empty list', () => {
    expect(segments({ start: 0, end: 2 }, 2, 1)).toEqual([
      { type: 'row', index: 0 },
      { type: 'row', index: 1 },
    ]);
    expect(segments({ start: 0, end: 0 }, 0, undefined)).toEqual([]);
  });
});
