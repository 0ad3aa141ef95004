/**
 * scripts/test-order.mjs: the order `npm test` starts its files in (issue 30: the slowest first).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { DURATIONS_FILE, keptDurations, slowestFirst } from '../../scripts/test-order.mjs';
import { selectTests } from '../../scripts/test-selection.mjs';

it('starts the slowest files first, files of unknown time before them, ties in the order given', () => {
  const seconds: Record<string, number> = { a: 2, b: 130, c: 0.5, d: 2 };
  expect(slowestFirst(['a', 'new-1', 'b', 'c', 'd', 'new-2'], (file) => seconds[file])).toEqual([
    'new-1',
    'new-2',
    'b',
    'a',
    'd',
    'c',
  ]);
  expect(slowestFirst([], () => 1)).toEqual([]);
});

it('reads the kept durations, and an unreadable file as none', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dockwatch-test-order-'));
  try {
    const good = join(dir, 'durations.json');
    writeFileSync(good, '{"test/a.test.ts": 12.5}');
    expect(keptDurations(good)).toEqual({ 'test/a.test.ts': 12.5 });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"test/a.test.ts": ');
    expect(keptDurations(bad)).toEqual({});
    expect(keptDurations(join(dir, 'absent.json'))).toEqual({});
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('keeps a time for the slow suites (a fresh clone has no vitest cache to order them by)', () => {
  const kept = keptDurations(DURATIONS_FILE);
  const { slow } = selectTests();
  const known = [...slow.keys()].filter((file) => typeof kept[file] === 'number');
  // New suites may come before their time is kept; most must have one, or the order is by size again.
  expect(known.length).toBeGreaterThan(slow.size * 0.8);
  for (const seconds of Object.values(kept)) expect(seconds).toBeGreaterThanOrEqual(0);
});
