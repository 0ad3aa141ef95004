import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the relay forwarded and what the hub answered (`dropped: no target` while none was set). */
export interface RelayedEvent {
  receivedAt: number;
  body: string;
  status: number;
  answer: unknown;
}

/**
 * A relay between a registry's notification endpoint and the hub's registry webhook: the
 * distribution registry can add fixed headers but cannot sign, and the hub requires an
 * HMAC-SHA256 of the body (http-interface §5.9). The relay signs the exact bytes it received (node:crypto, apart from
 * the hub's Web Crypto code), forwards them to `target` and answers the registry with the hub's
 * status, so a refused event is retried by the registry as it would be without the relay.
 */
export interface SigningRelay {
  /** `http://127.0.0.1:PORT/events`: the registry's endpoint URL. */
  url: string;
  /** The hub's registry webhook URL; set once the hub listens. */
  target: string | undefined;
  relayed: RelayedEvent[];
  /** Resolves once the hub has answered `count` events whose body matches. */
  waitFor(count: number, match?: (event: RelayedEvent) => boolean, timeoutMs?: number): Promise<RelayedEvent[]>;
  close(): Promise<void>;
}

export async function startSigningRelay(secret: string, header = 'x-registry-signature'): Promise<SigningRelay> {
  const relayed: RelayedEvent[] = [];
  const waiters = new Set<() => void>();
  const relay: SigningRelay = {
    url: '',
    target: undefined,
    relayed,
    async waitFor(count, match = () => true, timeoutMs = 15_000) {
      const found = () => relayed.filter(match);
      if (found().length >= count) return found();
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`relay: ${found().length} of ${count} matching events after ${timeoutMs} ms`));
        }, timeoutMs);
        const check = () => {
          if (found().length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
      return found();
    },
    close: async () => undefined,
  };

  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const receivedAt = Date.now();
    // Nothing listens yet (the registry is set up before the hub): acknowledged and dropped, so the
    // registry does not deliver set-up pushes later, in the middle of what a test measures.
    if (!relay.target) {
      relayed.push({ receivedAt, body: body.toString('utf8'), status: 202, answer: 'dropped: no target' });
      for (const wake of waiters) wake();
      res.writeHead(202).end();
      return;
    }
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    try {
      const answer = await fetch(relay.target, {
        method: 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json', [header]: signature },
        body,
      });
      const text = await answer.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Kept as text.
      }
      relayed.push({ receivedAt, body: body.toString('utf8'), status: answer.status, answer: parsed });
      for (const wake of waiters) wake();
      res.writeHead(answer.status).end();
    } catch {
      res.writeHead(502).end();
    }
  };

  const server = createServer((req, res) => {
    forward(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  relay.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return relay;
}
