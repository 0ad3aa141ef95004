export type LimitScope = 'ip' | 'session';

export interface ConnectionSlotKeys {
  /** Client address, or a shared bucket when the runtime cannot tell. */
  ip: string;
  /** The caller's identity; undefined for anonymous callers, who are limited by address only. */
  session: string | undefined;
}

export type SlotResult = { ok: true; release: () => void } | { ok: false; scope: LimitScope; limit: number };

export interface ConnectionLimiter {
  /** Takes one slot in every bucket of the keys, or none at all. */
  acquire(keys: ConnectionSlotKeys): SlotResult;
  /** Open connections in one bucket. */
  count(scope: LimitScope, key: string): number;
}

/** Concurrent-connection caps per client address and per identity (http-interface §8: 10 and 10 for the UI stream). */
export function createConnectionLimiter(limits: { perIp: number; perSession: number }): ConnectionLimiter {
  const open = new Map<string, number>();
  const bucket = (scope: LimitScope, key: string) => `${scope}:${key}`;
  const change = (name: string, by: number) => {
    const next = (open.get(name) ?? 0) + by;
    // Empty buckets are dropped, so a stream of one-off addresses leaves nothing behind.
    if (next <= 0) open.delete(name);
    else open.set(name, next);
  };

  return {
    acquire(keys) {
      const wanted: [LimitScope, string, number][] = [['ip', bucket('ip', keys.ip), limits.perIp]];
      if (keys.session !== undefined) wanted.push(['session', bucket('session', keys.session), limits.perSession]);
      for (const [scope, name, limit] of wanted) {
        if ((open.get(name) ?? 0) >= limit) return { ok: false, scope, limit };
      }
      for (const [, name] of wanted) change(name, 1);
      let released = false;
      return {
        ok: true,
        release() {
          // Idempotent: a stream may end by cancel, abort and hub stop at once.
          if (released) return;
          released = true;
          for (const [, name] of wanted) change(name, -1);
        },
      };
    },
    count: (scope, key) => open.get(bucket(scope, key)) ?? 0,
  };
}
