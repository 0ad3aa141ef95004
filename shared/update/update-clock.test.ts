import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { advanceUpdateClock, containerIdentity, type UpdateClock, UpdateClockSchema } from './update-clock';

const T0 = Date.UTC(2025, 0, 1);
const HOUR = 3_600_000;

describe('containerIdentity', () => {
  it('joins agent, watcher and name', () => {
    expect(containerIdentity({ agent: 'edge-1', watcher: 'local', name: 'traefik' })).toBe('edge-1::local::traefik');
  });

  it('names a local container __local__ whether the agent is missing or empty', () => {
    expect(containerIdentity({ watcher: 'local', name: 'traefik' })).toBe('__local__::local::traefik');
    expect(containerIdentity({ agent: '', watcher: 'local', name: 'traefik' })).toBe('__local__::local::traefik');
    expect(containerIdentity({ agent: undefined, watcher: 'local', name: 'traefik' })).toBe(
      '__local__::local::traefik',
    );
  });

  it('reads the Docker API form /name as name', () => {
    expect(containerIdentity({ watcher: 'local', name: '/traefik' })).toBe('__local__::local::traefik');
  });

  it('tells apart two agents that each run a local watcher with the same container name', () => {
    expect(containerIdentity({ agent: 'a', watcher: 'local', name: 'app' })).not.toBe(
      containerIdentity({ agent: 'b', watcher: 'local', name: 'app' }),
    );
  });
});

describe('advanceUpdateClock', () => {
  it('starts both instants when an update is first seen', () => {
    expect(advanceUpdateClock(undefined, { remoteValue: '2.0.0' }, T0)).toEqual({
      remoteValue: '2.0.0',
      updateDetectedAt: T0,
      firstSeenAt: T0,
    });
  });

  it('keeps the clock while the same remote value stays pending', () => {
    const clock = advanceUpdateClock(undefined, { remoteValue: '2.0.0' }, T0);
    expect(advanceUpdateClock(clock, { remoteValue: '2.0.0' }, T0 + 5 * HOUR)).toEqual(clock);
  });

  it('carries the clock across re-creation with a new container id', () => {
    // Storage keyed as the watcher does: by identity, never by container id.
    const clocks = new Map<string, UpdateClock | undefined>();
    const observe = (container: { id: string; name: string }, remoteValue: string | undefined, now: number) => {
      const key = containerIdentity({ agent: 'edge-1', watcher: 'docker', name: container.name });
      clocks.set(key, advanceUpdateClock(clocks.get(key), { remoteValue }, now));
      return clocks.get(key);
    };
    observe({ id: 'aaa111', name: 'web' }, 'sha256:new', T0);
    const afterRecreate = observe({ id: 'bbb222', name: '/web' }, 'sha256:new', T0 + 3 * HOUR);
    expect(afterRecreate).toEqual({ remoteValue: 'sha256:new', updateDetectedAt: T0, firstSeenAt: T0 });
  });

  it('restarts the clock when the remote value changes', () => {
    const clock = advanceUpdateClock(undefined, { remoteValue: '2.0.0' }, T0);
    expect(advanceUpdateClock(clock, { remoteValue: '2.0.1' }, T0 + HOUR)).toEqual({
      remoteValue: '2.0.1',
      updateDetectedAt: T0 + HOUR,
      firstSeenAt: T0 + HOUR,
    });
  });

  it('clears the clock when no update is pending, so a later return starts afresh', () => {
    const clock = advanceUpdateClock(undefined, { remoteValue: '2.0.0' }, T0);
    expect(advanceUpdateClock(clock, { remoteValue: undefined }, T0 + HOUR)).toBeUndefined();
    expect(advanceUpdateClock(clock, { remoteValue: '' }, T0 + HOUR)).toBeUndefined();
    expect(advanceUpdateClock(undefined, { remoteValue: '2.0.0' }, T0 + 2 * HOUR)?.updateDetectedAt).toBe(
      T0 + 2 * HOUR,
    );
  });

  it('clamps stored instants that lie after now, so a clock set back cannot stretch the gate', () => {
    const fromTheFuture = { remoteValue: '2.0.0', updateDetectedAt: T0 + 10 * HOUR, firstSeenAt: T0 + 10 * HOUR };
    expect(advanceUpdateClock(fromTheFuture, { remoteValue: '2.0.0' }, T0)).toEqual({
      remoteValue: '2.0.0',
      updateDetectedAt: T0,
      firstSeenAt: T0,
    });
  });

  it('has a schema that refuses a damaged stored clock', () => {
    expect(
      v.safeParse(UpdateClockSchema, { remoteValue: '2.0.0', updateDetectedAt: T0, firstSeenAt: T0 }).success,
    ).toBe(true);
    expect(v.safeParse(UpdateClockSchema, { remoteValue: '', updateDetectedAt: T0, firstSeenAt: T0 }).success).toBe(
      false,
    );
    expect(
      v.safeParse(UpdateClockSchema, { remoteValue: '2.0.0', updateDetectedAt: '2025-01-01', firstSeenAt: T0 }).success,
    ).toBe(false);
  });
});
