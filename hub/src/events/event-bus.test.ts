import { describe, expect, it } from 'vitest';
import { createEventBus, isBroadcastUiEventType, type UiEvent } from './event-bus';

function setup(options: { replayWindowMs?: number; maxBuffered?: number } = {}) {
  let clock = 1_000_000;
  const errors: unknown[] = [];
  const bus = createEventBus({
    now: () => clock,
    bootId: 'b00t',
    onListenerError: (error) => errors.push(error),
    ...options,
  });
  const scan = (n: number) => bus.publish('dd:scan-started', { containerId: `c${n}` });
  return { bus, scan, errors, advance: (ms: number) => (clock += ms) };
}

describe('event bus', () => {
  it('numbers events <bootId>:<counter> from 1 and delivers them in order', () => {
    const { bus, scan } = setup();
    expect(bus.currentId()).toBe('b00t:0');
    const seen: UiEvent[] = [];
    bus.subscribe((event) => seen.push(event));
    scan(1);
    bus.publish('dd:preferences-updated', {});
    expect(seen.map((event) => [event.id, event.type])).toEqual([
      ['b00t:1', 'dd:scan-started'],
      ['b00t:2', 'dd:preferences-updated'],
    ]);
    expect(bus.currentId()).toBe('b00t:2');
  });

  it('replays exactly the events after a Last-Event-ID still in the ring', () => {
    const { bus, scan } = setup();
    for (let n = 1; n <= 5; n++) scan(n);
    const after2 = bus.subscribe(() => undefined, { lastEventId: 'b00t:2' });
    expect(after2.replay).toBe('ok');
    expect(after2.missed.map((event) => event.id)).toEqual(['b00t:3', 'b00t:4', 'b00t:5']);
    expect(after2.position).toBe('b00t:2');
    const upToDate = bus.subscribe(() => undefined, { lastEventId: 'b00t:5' });
    expect(upToDate).toMatchObject({ replay: 'ok', missed: [], position: 'b00t:5' });
    // Counter 0 means "before the first event": everything is replayed while the first is kept.
    expect(bus.subscribe(() => undefined, { lastEventId: 'b00t:0' }).missed).toHaveLength(5);
    expect(bus.subscribe(() => undefined, {})).toMatchObject({ replay: 'none', missed: [], position: 'b00t:5' });
  });

  it('expires events after the replay window, by the injected clock', () => {
    const { bus, scan, advance } = setup({ replayWindowMs: 60_000 });
    scan(1);
    advance(30_000);
    scan(2);
    advance(30_001);
    // Event 1 is now older than the window; event 2 is not.
    expect(bus.bufferedCount()).toBe(1);
    expect(bus.subscribe(() => undefined, { lastEventId: 'b00t:1' })).toMatchObject({
      replay: 'ok',
      missed: [{ id: 'b00t:2' }],
    });
    expect(bus.subscribe(() => undefined, { lastEventId: 'b00t:0' })).toMatchObject({
      replay: 'resync-required',
      resyncReason: 'buffer-exceeded',
      missed: [],
      position: 'b00t:2',
    });
    advance(30_000);
    // Everything expired: only a client that already has the newest event is still in step.
    expect(bus.bufferedCount()).toBe(0);
    expect(bus.subscribe(() => undefined, { lastEventId: 'b00t:2' })).toMatchObject({ replay: 'ok', missed: [] });
    expect(bus.subscribe(() => undefined, { lastEventId: 'b00t:1' }).replay).toBe('resync-required');
  });

  it('bounds the ring by count as well', () => {
    const { bus, scan } = setup({ maxBuffered: 3 });
    for (let n = 1; n <= 5; n++) scan(n);
    expect(bus.bufferedCount()).toBe(3);
    expect(bus.subscribe(() => undefined, { lastEventId: 'b00t:2' }).missed.map((event) => event.id)).toEqual([
      'b00t:3',
      'b00t:4',
      'b00t:5',
    ]);
    expect(bus.subscribe(() => undefined, { lastEventId: 'b00t:1' })).toMatchObject({
      replay: 'resync-required',
      resyncReason: 'buffer-exceeded',
    });
  });

  it('keeps a long run bounded and addressable after compacting its storage', () => {
    const { bus, scan } = setup({ maxBuffered: 100 });
    for (let n = 1; n <= 5_000; n++) scan(n);
    expect(bus.bufferedCount()).toBe(100);
    expect(bus.subscribe(() => undefined, { lastEventId: 'b00t:4990' }).missed.map((event) => event.counter)).toEqual([
      4991, 4992, 4993, 4994, 4995, 4996, 4997, 4998, 4999, 5000,
    ]);
  });

  it('tells a client from another boot that nothing can be replayed', () => {
    const { bus, scan } = setup();
    scan(1);
    expect(bus.subscribe(() => undefined, { lastEventId: 'a1b2c3d4:1' })).toMatchObject({
      replay: 'boot-changed',
      resyncReason: 'boot-changed',
      missed: [],
      position: 'b00t:1',
    });
  });

  it('answers malformed ids and counters this boot never issued with a resync', () => {
    const { bus, scan } = setup();
    scan(1);
    for (const id of [
      'garbage',
      'b00t:',
      'b00t:x',
      'b00t:-1',
      'b00t:01',
      'b00t:1.5',
      'b00t:99',
      ':1',
      'bad boot:1',
      `b00t:${'9'.repeat(30)}`,
    ]) {
      expect(
        bus.subscribe(() => undefined, { lastEventId: id }),
        id,
      ).toMatchObject({ replay: 'resync-required', resyncReason: 'invalid-event-id' });
    }
  });

  it('isolates subscribers: one that throws does not keep the event from the others', () => {
    const { bus, scan, errors } = setup();
    const seen: string[] = [];
    bus.subscribe(() => {
      throw new Error('broken client');
    });
    bus.subscribe((event) => seen.push(event.id));
    scan(1);
    scan(2);
    expect(seen).toEqual(['b00t:1', 'b00t:2']);
    expect(errors).toHaveLength(2);
  });

  it('neither repeats an event to a subscriber added during its fan-out nor sends it to one removed', () => {
    const { bus, scan } = setup();
    const late: string[] = [];
    const removed: string[] = [];
    let victim: { unsubscribe(): void } | undefined;
    bus.subscribe(() => {
      victim?.unsubscribe();
      if (late.length === 0) {
        const subscription = bus.subscribe((event) => late.push(event.id), { lastEventId: 'b00t:0' });
        late.push(...subscription.missed.map((event) => event.id));
      }
    });
    victim = bus.subscribe((event) => removed.push(event.id));
    scan(1);
    scan(2);
    expect(late).toEqual(['b00t:1', 'b00t:2']);
    expect(removed).toEqual([]);
  });

  it('counts subscribers, forgets unsubscribed ones and ends all on closeAll', () => {
    const { bus } = setup();
    let closed = 0;
    const a = bus.subscribe(() => undefined, { onClose: () => closed++ });
    bus.subscribe(() => undefined, { onClose: () => closed++ });
    expect(bus.subscriberCount).toBe(2);
    a.unsubscribe();
    a.unsubscribe();
    expect(bus.subscriberCount).toBe(1);
    bus.closeAll();
    expect(bus.subscriberCount).toBe(0);
    expect(closed).toBe(1);
  });

  it('knows which event types may be broadcast', () => {
    expect(isBroadcastUiEventType('dd:container-added')).toBe(true);
    expect(isBroadcastUiEventType('security-scan-cycle-complete')).toBe(true);
    expect(isBroadcastUiEventType('dd:connected')).toBe(false);
    expect(isBroadcastUiEventType('dd:heartbeat')).toBe(false);
    expect(isBroadcastUiEventType('nope')).toBe(false);
  });
});
