import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../schemas/log-entry';
import { createLogRing } from './log-ring';
import { createLogger } from './logger';

const entry = (i: number, over: Partial<LogEntry> = {}): LogEntry => ({
  timestamp: i,
  level: 'info',
  component: 'c',
  msg: `m${i}`,
  ...over,
});

describe('log ring', () => {
  it('keeps only the last `capacity` entries, oldest first', () => {
    const ring = createLogRing(3);
    for (let i = 1; i <= 5; i++) ring.push(entry(i));
    expect(ring.query({}).map((e) => e.msg)).toEqual(['m3', 'm4', 'm5']);
    expect(ring.query({ tail: 2 }).map((e) => e.msg)).toEqual(['m4', 'm5']);
    expect(ring.query({ tail: 0 })).toEqual([]);
  });

  it('filters by level, component and since before taking the tail', () => {
    const ring = createLogRing(10);
    ring.push(entry(1, { level: 'debug' }));
    ring.push(entry(2, { level: 'error', component: 'registry.hub' }));
    ring.push(entry(3, { level: 'warn', component: 'watcher' }));
    ring.push(entry(4, { level: 'info', component: 'registry.ghcr' }));
    expect(ring.query({ level: 'warn' }).map((e) => e.timestamp)).toEqual([2, 3]);
    expect(ring.query({ component: 'registry' }).map((e) => e.timestamp)).toEqual([2, 4]);
    expect(ring.query({ since: 2 }).map((e) => e.timestamp)).toEqual([3, 4]);
    expect(ring.query({ level: 'info', tail: 1 }).map((e) => e.timestamp)).toEqual([4]);
    expect(ring.components()).toEqual(['c', 'registry.ghcr', 'registry.hub', 'watcher']);
  });

  it('notifies subscribers even when buffering is disabled, and survives a throwing one', () => {
    const ring = createLogRing(10, false);
    const seen: string[] = [];
    ring.subscribe(() => {
      throw new Error('closed socket');
    });
    const stop = ring.subscribe((e) => seen.push(e.msg));
    ring.push(entry(1));
    stop();
    ring.push(entry(2));
    expect(seen).toEqual(['m1']);
    expect(ring.query({})).toEqual([]);
  });
});

describe('logger', () => {
  it('records at or above its level, with the component, and redacts sensitive fields', () => {
    const ring = createLogRing();
    const lines: unknown[] = [];
    const logger = createLogger({ level: 'info', ring, sink: (e, f) => lines.push({ ...e, ...f }), now: () => 42 });
    logger.child('registry.hub').debug('hidden');
    logger.child('registry.hub').info('token fetched', { password: 'hunter2', apiToken: 'abc', host: 'h' });
    expect(ring.query({})).toEqual([{ timestamp: 42, level: 'info', component: 'registry.hub', msg: 'token fetched' }]);
    expect(lines).toEqual([
      {
        timestamp: 42,
        level: 'info',
        component: 'registry.hub',
        msg: 'token fetched',
        password: '***',
        apiToken: '***',
        host: 'h',
      },
    ]);
  });
});
