import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogRing } from '../../../../shared/logging/log-ring';
import { createLogger } from '../../../../shared/logging/logger';
import type { LogEntry } from '../../../../shared/schemas/log-entry';
import type { KeyNews } from './gateway-messages';
import { createKeyBroadcast, type KeyBroadcastOptions, type TellGateway } from './key-broadcast';

const GATEWAYS = Array.from({ length: 64 }, (_, shard) => `edge-gateway-${shard}`);

interface Told {
  gateway: string;
  news: KeyNews;
}

/** A broadcast whose gateways answer when `answer` says (at once by default), recording what each was told. */
function bed(options: Partial<KeyBroadcastOptions> & { answer?: (told: Told, signal: AbortSignal) => Promise<void> }) {
  const told: Told[] = [];
  const warnings: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const tell: TellGateway = async (gateway, news, signal) => {
    const entry = { gateway, news: structuredClone(news) };
    told.push(entry);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      await (options.answer?.(entry, signal) ?? Promise.resolve());
    } finally {
      inFlight -= 1;
    }
  };
  const logger = createLogger({
    level: 'warn',
    ring: createLogRing(),
    sink: (entry: LogEntry) => void warnings.push(entry.msg),
  });
  const broadcast = createKeyBroadcast({
    gateways: GATEWAYS,
    tell,
    logger,
    deadlineMs: 2_000,
    concurrency: 16,
    maxKeys: 1024,
    ...options,
  });
  return { broadcast, told, warnings, maxInFlight: () => maxInFlight };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('key news for the edge gateways (issue 33 item 14)', () => {
  it('regression: a burst of 1,000 registrations is one message per gateway, not one per gateway per key', async () => {
    // Under workerd, a timer per gateway per key spent the object's 10,000 active timers in 670 keys.
    const { broadcast, told, maxInFlight } = bed({});
    const keys = Array.from({ length: 1_000 }, (_, index) => `key${index}`);
    await Promise.all(keys.map((keyId) => broadcast.registered(keyId, 'all')));
    expect(told).toHaveLength(GATEWAYS.length);
    expect(new Set(told.map((entry) => entry.gateway))).toEqual(new Set(GATEWAYS));
    for (const entry of told) expect(entry.news).toEqual({ registered: keys, revoked: [] });
    expect(maxInFlight()).toBeLessThanOrEqual(16);
  });

  it('news arriving while a flush is out waits for the next one, and each promise resolves with its own flush', async () => {
    const answers: (() => void)[] = [];
    const { broadcast, told } = bed({ answer: () => new Promise<void>((resolve) => answers.push(resolve)) });
    /** Answers every call out, until `count` calls were made and answered. */
    const answerUntil = async (count: number) => {
      while (told.length < count || answers.length > 0) {
        for (const answer of answers.splice(0)) answer();
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const first = broadcast.registered('a', 'all');
    await vi.waitFor(() => expect(answers).toHaveLength(16));
    // The first flush is out: these three go together in the second.
    const later = Promise.all([
      broadcast.registered('b', 'all'),
      broadcast.revoked('c'),
      broadcast.registered('d', 'all'),
    ]);
    await answerUntil(GATEWAYS.length);
    await first;
    await answerUntil(2 * GATEWAYS.length);
    await later;
    expect(told).toHaveLength(2 * GATEWAYS.length);
    for (const entry of told.slice(GATEWAYS.length))
      expect(entry.news).toEqual({ registered: ['b', 'd'], revoked: ['c'] });
  });

  it('one timer per flush: a gateway that never answers holds its flush until the deadline only', async () => {
    vi.useFakeTimers();
    const { broadcast, told, warnings } = bed({
      answer: (entry, signal) =>
        entry.gateway === 'edge-gateway-3'
          ? new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))
          : Promise.resolve(),
    });
    let done = false;
    const registered = Promise.all(
      Array.from({ length: 500 }, (_, index) => broadcast.registered(`key${index}`, 'all')),
    ).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(told).toHaveLength(GATEWAYS.length);
    expect(vi.getTimerCount()).toBe(1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(2_000);
    await registered;
    expect(vi.getTimerCount()).toBe(0);
    expect(warnings).toEqual(['key news: 1 of 64 messages to the gateways not delivered']);
  });

  it('a gateway with more than maxKeys of news gets them in several messages of the same flush, revocations first', async () => {
    const { broadcast, told } = bed({ maxKeys: 3, gateways: ['g'] });
    await Promise.all([
      broadcast.registered('r1', 'all'),
      broadcast.registered('r2', 'all'),
      broadcast.registered('r3', 'all'),
      broadcast.revoked('x1'),
    ]);
    expect(told.map((entry) => entry.news)).toEqual([
      { revoked: ['x1'], registered: ['r1', 'r2'] },
      { revoked: [], registered: ['r3'] },
    ]);
  });

  it('tells a registration to the gateways named only; none named, nothing is sent', async () => {
    const { broadcast, told } = bed({});
    await broadcast.registered('quiet', []);
    expect(told).toEqual([]);
    await Promise.all([
      broadcast.registered('k1', ['edge-gateway-5']),
      broadcast.registered('k2', ['edge-gateway-5', 'edge-gateway-9']),
    ]);
    expect(told).toEqual([
      { gateway: 'edge-gateway-5', news: { revoked: [], registered: ['k1', 'k2'] } },
      { gateway: 'edge-gateway-9', news: { revoked: [], registered: ['k2'] } },
    ]);
    // A name it does not address (another deployment's?): every gateway, to be safe.
    told.length = 0;
    await broadcast.registered('k3', ['edge-gateway-99']);
    expect(told).toHaveLength(GATEWAYS.length);
  });

  it('a gateway call that throws at once (the runtime refusing a request) fails that gateway only', async () => {
    const failing: TellGateway = (gateway) => {
      if (gateway === 'g1') throw new Error('QuotaExceededError: too many');
      return Promise.resolve();
    };
    const warnings: string[] = [];
    const broadcast = createKeyBroadcast({
      gateways: ['g0', 'g1', 'g2'],
      tell: failing,
      logger: createLogger({ level: 'warn', ring: createLogRing(), sink: (entry) => void warnings.push(entry.msg) }),
      deadlineMs: 2_000,
      concurrency: 2,
      maxKeys: 10,
    });
    await broadcast.registered('k', 'all');
    expect(warnings).toEqual(['key news: 1 of 3 messages to the gateways not delivered']);
  });
});
