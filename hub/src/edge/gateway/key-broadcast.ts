import type { Logger } from '../../../../shared/logging/logger';
import type { KeyNews } from './gateway-messages';

/** How the broadcast reaches one gateway: one request, which the signal may abort. */
export type TellGateway = (gateway: string, news: KeyNews, signal: AbortSignal) => Promise<unknown>;

/** The gateways a key's news is for: the ones named, or all of them. */
export type GatewayAudience = readonly string[] | 'all';

export interface KeyBroadcastOptions {
  /** Every gateway's name. */
  gateways: readonly string[];
  tell: TellGateway;
  logger: Logger;
  /** A flush waits this long for its gateways, then goes on: news is a courtesy, the hub decides sign-ins. */
  deadlineMs: number;
  /** Gateways told at once. */
  concurrency: number;
  /** Key ids in one message at most; a gateway with more news gets several. */
  maxKeys: number;
}

/** Key news for the gateways; each promise resolves once the flush carrying it has told them (or gave up). */
export interface KeyBroadcast {
  /** For the gateways that may remember the key as unknown; none named, nothing is sent. */
  registered(keyId: string, audience: GatewayAudience): Promise<void>;
  /** For every gateway. */
  revoked(keyId: string): Promise<void>;
}

/**
 * Key registrations and revocations told to the edge gateways, coalesced (issue 33 item 14): news
 * arriving while a flush is out waits, and the next flush sends each gateway one message with all
 * of its news, whatever the number of keys. So a burst of registrations costs at most one request
 * per gateway per flush, `concurrency` in flight, and one timer per flush: workerd allows an object
 * 10,000 active timers, which a request and a timer per gateway per key spent in 670 keys.
 */
export function createKeyBroadcast(options: KeyBroadcastOptions): KeyBroadcast {
  const { gateways, tell, deadlineMs, concurrency, maxKeys } = options;
  const logger = options.logger.child('edge.gateway');
  const known = new Set(gateways);
  let registered = new Map<string, Set<string>>();
  let revoked = new Set<string>();
  let waiting: (() => void)[] = [];
  let running = false;

  const announce = (add: () => void) =>
    new Promise<void>((resolve) => {
      add();
      waiting.push(resolve);
      if (running) return;
      running = true;
      // After the rest of this turn: news announced together goes in one flush.
      queueMicrotask(() => void drain());
    });

  const registerFor = (keyId: string, audience: GatewayAudience) => {
    // A name this hub does not address (an older deployment's?) gets everyone told, to be safe.
    const all = audience === 'all' || audience.some((gateway) => !known.has(gateway));
    for (const gateway of all ? gateways : audience) {
      const keys = registered.get(gateway) ?? new Set<string>();
      keys.add(keyId);
      registered.set(gateway, keys);
    }
  };

  const drain = async () => {
    try {
      while (waiting.length > 0) {
        const messages = take();
        const done = waiting;
        waiting = [];
        // A flush that could not even start (the runtime refused its timer) resolves its waiters
        // all the same: the gateways' caches expire by themselves.
        if (messages.length > 0)
          await tellAll(messages).catch((error: unknown) =>
            logger.warn('key news: not told to the gateways', { error: String(error) }),
          );
        for (const resolve of done) resolve();
      }
    } finally {
      running = false;
    }
  };

  /** Everything pending, as messages of at most maxKeys ids, each gateway's in a row. */
  const take = (): { gateway: string; news: KeyNews }[] => {
    const messages: { gateway: string; news: KeyNews }[] = [];
    const gone = [...revoked];
    for (const gateway of gateways) {
      const ids = [...(registered.get(gateway) ?? [])];
      for (let offset = 0; offset < gone.length + ids.length; offset += maxKeys) {
        const cut = (list: string[], from: number) =>
          list.slice(Math.max(0, offset - from), Math.max(0, offset + maxKeys - from));
        messages.push({ gateway, news: { revoked: cut(gone, 0), registered: cut(ids, gone.length) } });
      }
    }
    registered = new Map();
    revoked = new Set();
    return messages;
  };

  /** The messages, `concurrency` at a time, under one deadline for the whole flush. */
  const tellAll = async (messages: { gateway: string; news: KeyNews }[]) => {
    const abort = new AbortController();
    const deadline = setTimeout(() => abort.abort(new Error('key news: deadline passed')), deadlineMs);
    let next = 0;
    let failed = 0;
    const worker = async () => {
      while (next < messages.length && !abort.signal.aborted) {
        const { gateway, news } = messages[next++] as { gateway: string; news: KeyNews };
        try {
          await tell(gateway, news, abort.signal);
        } catch {
          failed += 1;
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(concurrency, messages.length) }, worker));
    } finally {
      clearTimeout(deadline);
    }
    const untold = messages.length - next + failed;
    if (untold > 0)
      logger.warn(`key news: ${untold} of ${messages.length} messages to the gateways not delivered`, {
        timedOut: abort.signal.aborted,
      });
  };

  return {
    registered: (keyId, audience) => {
      if (audience !== 'all' && audience.length === 0) return Promise.resolve();
      return announce(() => registerFor(keyId, audience));
    },
    revoked: (keyId) => announce(() => revoked.add(keyId)),
  };
}
