/**
 * The hub the container fuzz runs against: two Docker watchers on Engines that are not there (a
 * socket path that does not exist, a TCP port nobody listens on), in memory or over a socket, with
 * records seeded through the hub's own container store. Plus the request helpers and invariants.
 */

import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createDockerHost } from '../../edge-agent/src/docker';
import type { Environment } from '../../shared/config/env-source';
import type { Container } from '../../shared/schemas/container';
import { ContainerSchema } from '../../shared/schemas/container';
import { ErrorBodySchema } from '../../shared/schemas/error-body';
import { createMemoryHub, createServerHub, type HubClient } from '../support/hub-harness';
import { type ContainerPageExpectation, publicView, SECRET_MARK } from './container-generators';
import { preview, type QueryExpectation, type Rng } from './generators';
import { call, type Seen } from './support/fuzz-http';

export { budget, call, expectSchema, type Seen, storedState } from './support/fuzz-http';

/** GET /api/v1/containers (http-interface §4.8). */
export const PageSchema = v.object({
  data: v.array(ContainerSchema),
  total: v.number(),
  limit: v.number(),
  offset: v.number(),
  hasMore: v.boolean(),
});

export const METRICS_TOKEN = 'fuzz-containers-t0ken-5e1a';
export const HUB_ENV: Environment = {
  DD_LOCAL_WATCHER: 'false',
  DD_WATCHER_FUZZ_SOCKET: '/nonexistent-dockwatch-fuzz/docker.sock',
  DD_WATCHER_ALPHA_HOST: '127.0.0.1',
  DD_WATCHER_ALPHA_PORT: '1',
  DD_SERVER_METRICS_TOKEN: METRICS_TOKEN,
};

const _readNothing = (path: string): string => {
  throw new Error(`no file ${path} in tests`);
};

/** createMemoryHub of ../support/hub-harness, plus the Node Docker client: the watchers exist in memory too. */
function createMemoryHubWithDocker(env: Environment): Promise<HubClient> {
  return createMemoryHub(env, { dockerHostFor: (endpoint) => createDockerHost(endpoint) });
}

/** The seed of describeContainerHubs for a hub that holds just these records. */
export const putRecords =
  (records: readonly Container[]) =>
  async (hub: HubClient): Promise<void> => {
    for (const record of records) await hub.hub.parts.containers.put(record);
  };

/** Runs the suite in memory and over a real socket, each against a fresh hub prepared by `seed`. */
export function describeContainerHubs(
  name: string,
  seed: (hub: HubClient) => Promise<void>,
  suite: (client: () => HubClient) => void,
): void {
  for (const mode of ['memory', 'server'] as const) {
    describe(`${name} [${mode}]`, () => {
      let client: HubClient | undefined;
      beforeAll(async () => {
        client = mode === 'memory' ? await createMemoryHubWithDocker(HUB_ENV) : await createServerHub(HUB_ENV);
        await seed(client);
      });
      afterAll(async () => {
        await client?.close();
      });
      suite(() => {
        if (!client) throw new Error('hub not started');
        return client;
      });
    });
  }
}

export const shown = (seen: Seen): string => `-> ${seen.status} ${preview(seen.text, 300)}`;

/**
 * Whatever was sent: never a 5xx (but those http-interface §4.3 prescribes, e.g. 501 for an inventory refresh of a
 * provider that cannot), every error an http-interface §2.15 JSON body, no secret in any answer.
 */
export function checkInvariants(
  seen: Seen,
  context: string,
  secretMark: string,
  prescribed: readonly number[] = [],
): void {
  const where = `${context}\n  ${shown(seen)}`;
  if (!prescribed.includes(seen.status)) expect(seen.status, `5xx or non-HTTP status: ${where}`).toBeLessThan(500);
  expect(seen.status, where).toBeGreaterThanOrEqual(200);
  expect(seen.text.includes(secretMark), `a secret environment value left the hub: ${where}`).toBe(false);
  if (seen.status < 400) return;
  expect(seen.headers.get('content-type') ?? '', `error without JSON content-type: ${where}`).toMatch(
    /^application\/json/,
  );
  const body = v.safeParse(ErrorBodySchema, seen.json);
  expect(body.success && body.output.error.length > 0, `not an http-interface §2.15 error body: ${where}`).toBe(true);
}

/** Answers with 5xx statuses the interface (docs/http-interface.md) or the route prescribes; any other 5xx is a failure. */
const PRESCRIBED = [
  /route="\/api\/v1\/watchers\/:type\/:name\/inventory",status="501"/,
  /route="\/api\/v1\/containers\/:id\/watch",status="503"/,
];

/** No 5xx counted by the hub itself (but the prescribed ones), no error logged, and still healthy. */
export async function expectHealthyAfter(hub: HubClient, context: string): Promise<void> {
  expect((await call(hub, 'GET', '/health')).status, `${context}: /health`).toBe(200);
  const metrics = await hub.request('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const fiveHundreds = (await metrics.text())
    .split('\n')
    .filter(
      (line) =>
        /^dd_http_requests_total\{.*status="5\d\d"\}/.test(line) && !PRESCRIBED.some((pattern) => pattern.test(line)),
    );
  const errors = hub.logged
    .filter(({ entry }) => entry.level === 'error' || entry.level === 'fatal')
    .map(({ entry }) => entry.msg);
  expect({ fiveHundreds, errors }, context).toEqual({ fiveHundreds: [], errors: [] });
}

export function checkQueryOutcome(seen: Seen, expected: QueryExpectation, context: string): 'ok' | 'rejected' {
  const detail = `${context}\n  expected ${JSON.stringify({ ...expected, values: Object.fromEntries(expected.values) })}\n  ${shown(seen)}`;
  const parameter = (seen.json as { details?: { parameter?: unknown } } | undefined)?.details?.parameter;
  if (expected.outcome === 'ok') expect(seen.status, detail).toBe(200);
  else if (expected.outcome === 'error')
    expect({ status: seen.status, parameter }, detail).toEqual({ status: 400, parameter: expected.parameter });
  else expect([200, 400], detail).toContain(seen.status);
  return seen.status === 200 ? 'ok' : 'rejected';
}

export function expectPage(
  seen: Seen,
  expected: ContainerPageExpectation,
  byId: Map<string, Container>,
  context: string,
): void {
  const body = seen.json as v.InferOutput<typeof PageSchema>;
  const ids = body.data.map((c) => c.id);
  const detail = `${context}\n  ${shown(seen)}`;
  expect(new Set(ids).size, `duplicates in a page: ${detail}`).toBe(ids.length);
  const fits = expected.matching.some((set) => set.size === body.total && ids.every((id) => set.has(id)));
  expect(
    fits,
    `total or members differ from the filter: expected one of ${expected.matching.map((s) => s.size)}: ${detail}`,
  ).toBe(true);
  const rest = Math.max(0, body.total - expected.offset);
  const length = expected.limit === 0 ? rest : Math.min(expected.limit, rest);
  expect({ limit: body.limit, offset: body.offset, length: ids.length, hasMore: body.hasMore }, detail).toEqual({
    limit: expected.limit,
    offset: expected.offset,
    length,
    hasMore: expected.offset + ids.length < body.total,
  });
  if (expected.keys && expected.key)
    expect(expected.keys, `page out of order: ${detail}`).toContainEqual(body.data.map(expected.key));
  for (const item of body.data) expect(item, detail).toEqual(publicView(byId.get(item.id) as Container));
}

/** A JSON request body as `call` sends it. */
export const jsonBody = (json: string) => ({ bytes: new TextEncoder().encode(json), contentType: 'application/json' });

/**
 * 0–4 entries drawn from a table of `[key, value, verdict]` whose verdicts are known by construction (only the
 * `valid` ones when asked); a later draw of a key replaces the earlier one, as in the JSON map the hub reads.
 */
export function drawEntries<V extends string>(
  rng: Rng,
  table: readonly (readonly [string, unknown, V])[],
  onlyValid: boolean,
): Map<string, [unknown, V]> {
  const pool = onlyValid ? table.filter(([, , verdict]) => verdict === 'valid') : table;
  const picked = new Map<string, [unknown, V]>();
  for (let n = rng.int(0, 4); n > 0; n--) {
    const [key, value, verdict] = rng.pick(pool);
    picked.set(key, [value, verdict]);
  }
  return picked;
}

/** Sends a JSON body, holds the invariants (no secret is SECRET_MARK) and asserts the one status due. */
export async function expectAnswer(
  hub: HubClient,
  method: string,
  path: string,
  json: string,
  context: string,
  status: number,
): Promise<Seen> {
  const seen = await call(hub, method, path, jsonBody(json));
  checkInvariants(seen, context, SECRET_MARK);
  expect(seen.status, `${context}\n  ${shown(seen)}`).toBe(status);
  return seen;
}
