/**
 * docs/events.md shows a plain EventSource client; this runs that file (docs/examples/sse-client.mjs)
 * with the `eventsource` package against a real listening hub with basic users: it follows the
 * stream with an API key and with a session cookie, receives the events a real change announces
 * (an inventory applied, an update policy set over HTTP), and resumes from the last id it saw.
 * It also shows why the example listens by name: an `onmessage` handler gets nothing.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { PASSWORD, sessionIdOf, USERS_ENV } from '../security/auth-fixtures';
import { createServerHub, type HubClient, jsonInit } from '../support/hub-harness';
import { cycle, record } from '../support/notification-hub';

interface HubEvent {
  type: string;
  id: string;
  data: unknown;
}
interface ClosableSource {
  close(): void;
  onmessage: ((event: unknown) => void) | null;
}
interface SseClientExample {
  HUB_EVENTS: string[];
  followHubEvents(options: {
    baseUrl: string;
    apiKey?: string;
    cookie?: string;
    lastEventId?: string;
    onEvent(event: HubEvent): void;
    onError?(error: unknown): void;
  }): ClosableSource;
}

// Loaded by URL: the example is plain JavaScript, as a reader would copy it.
const EXAMPLE = new URL('../../docs/examples/sse-client.mjs', import.meta.url).href;

/** Follows the stream with the example and collects what it hands over. */
function follow(
  example: SseClientExample,
  options: Omit<Parameters<SseClientExample['followHubEvents']>[0], 'onEvent'>,
) {
  const events: HubEvent[] = [];
  const waiters: { test: (event: HubEvent) => boolean; resolve: (event: HubEvent) => void }[] = [];
  const source = example.followHubEvents({
    ...options,
    onEvent(event) {
      events.push(event);
      for (const waiter of waiters.splice(0)) {
        if (waiter.test(event)) waiter.resolve(event);
        else waiters.push(waiter);
      }
    },
  });
  const next = (test: (event: HubEvent) => boolean): Promise<HubEvent> => {
    const seen = events.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => waiters.push({ test, resolve }));
  };
  return { source, events, next };
}

const named = (type: string, name?: string) => (event: HubEvent) =>
  event.type === type && (name === undefined || (event.data as Container).name === name);

describe('the plain EventSource example of docs/events.md', () => {
  let hub: HubClient;
  let example: SseClientExample;
  let apiKey: string;
  let cookie: string;

  beforeAll(async () => {
    example = (await import(EXAMPLE)) as SseClientExample;
    hub = await createServerHub(USERS_ENV);
    const login = await hub.request('/api/v1/auth/login', jsonInit('POST', { username: 'alice', password: PASSWORD }));
    cookie = `dd.sid=${sessionIdOf(login)}`;
    const created = await hub.request(
      '/api/v1/api-keys',
      jsonInit('POST', { name: 'events reader', scopes: ['read'] }, { cookie }),
    );
    expect(created.status).toBe(201);
    apiKey = ((await created.json()) as { apiKey: string }).apiKey;
  });

  afterAll(async () => {
    await hub?.close();
  });

  it('receives real events with an API key, by name; onmessage gets none of them', async () => {
    const stream = follow(example, { baseUrl: hub.url ?? '', apiKey });
    let unnamed = 0;
    stream.source.onmessage = () => {
      unnamed += 1;
    };
    try {
      await stream.next(named('dd:connected'));
      await cycle(hub, [record('web', { from: '1.0.0', to: '2.0.0' })]);
      const added = await stream.next(named('dd:container-added', 'web'));
      expect(added.id).toMatch(new RegExp(`^${hub.hub.parts.bootId}:\\d+$`));
      const snoozed = await hub.request(
        '/api/v1/containers/web-id/update-policy',
        jsonInit('PATCH', { action: 'snooze', days: 2 }, { cookie }),
      );
      expect(snoozed.status).toBe(200);
      const updated = await stream.next(named('dd:container-updated', 'web'));
      expect((updated.data as Container).updatePolicy?.snoozeUntil).toBeDefined();
      expect(unnamed).toBe(0);
      // Every event the hub sent was one the example listens to.
      expect(stream.events.every((event) => example.HUB_EVENTS.includes(event.type))).toBe(true);
    } finally {
      stream.source.close();
    }
  });

  it('follows with a session cookie, and resumes after the last id it saw (Last-Event-ID)', async () => {
    const first = follow(example, { baseUrl: hub.url ?? '', cookie });
    await first.next(named('dd:connected'));
    await cycle(hub, [record('db', { from: '1.0.0', to: '1.1.0' })]);
    const seen = await first.next(named('dd:container-added', 'db'));
    first.source.close();

    // Missed while no client was connected.
    await cycle(hub, [record('db', { from: '1.0.0', to: '1.1.0' }), record('cache', { from: '7.0', to: '7.2' })]);
    const resumed = follow(example, { baseUrl: hub.url ?? '', cookie, lastEventId: seen.id });
    try {
      const replayed = await resumed.next(named('dd:container-added', 'cache'));
      const counter = (id: string) => Number(id.split(':')[1]);
      expect(counter(replayed.id)).toBeGreaterThan(counter(seen.id));
      // Nothing from before the id comes again.
      expect(
        resumed.events.filter((event) => event.type !== 'dd:connected' && counter(event.id) <= counter(seen.id)),
      ).toEqual([]);
    } finally {
      resumed.source.close();
    }
  });

  it('is shown in docs/events.md exactly as it is in the file', () => {
    const file = readFileSync(new URL(EXAMPLE), 'utf8');
    const doc = readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8');
    expect(doc).toContain(`\`\`\`js\n${file}\`\`\``);
  });

  it('is refused without a credential, and says so through onError', async () => {
    const errors: unknown[] = [];
    const refused = example.followHubEvents({
      baseUrl: hub.url ?? '',
      onEvent: () => undefined,
      onError: (error) => errors.push(error),
    });
    try {
      await expect.poll(() => errors.length).toBeGreaterThan(0);
      expect((errors[0] as { code?: number }).code).toBe(401);
    } finally {
      refused.close();
    }
  });
});
