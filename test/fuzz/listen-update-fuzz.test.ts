/**
 * Fuzz of a listen-mode agent's update, image and operation routes (docs/listen-mode.md "This
 * agent's additions"), against the agent as `npm run agent -- --listen` starts it, over real HTTP.
 *
 * Invariants, for every request: never a 5xx, never a hang, every refusal is the http-interface §2.15
 * JSON body, and nothing hostile is journalled or run (GET /api/operations stays empty). Its
 * watcher's Docker socket does not exist, so a request that got past validation to Docker would
 * answer 500: every body here is refused before (the valid-shaped ones name another container than
 * the path's). Deterministic: FUZZ_SEED=<seed> npx vitest run test/fuzz/listen-update-fuzz.test.ts.
 */
import * as v from 'valibot';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentUpdateRequestSchema } from '../../shared/agent-api/listen-schemas';
import {
  encodeComponent,
  type FieldSpec,
  genJsonBody,
  genPathSegment,
  HOSTILE_STRINGS,
  hostileJsonValue,
  preview,
  type Rng,
  rngFor,
} from './generators';
import { SEED, SEED_TAG } from './support/fuzz-seed';
import { useListenAgentCall } from './support/listen-agent-call';

const SECRET = 'listen-fuzz-secret-0123456789abcdef';
const CASES = 150;
const decoder = new TextDecoder();

/** A valid operation, but of container `c2`: the route's path names `c1`. */
const operation = (rng: Rng) => ({
  id: crypto.randomUUID(),
  kind: rng.pick(['update', 'rollback']),
  source: rng.pick(['api', 'webhook', 'auto']),
  status: 'queued',
  phase: 'prepare',
  containerId: 'c2',
  containerName: 'web',
  watcher: 'local',
  targetImage: '127.0.0.1:5000/web:2.0.0',
  createdAt: new Date(0).toISOString(),
  updatedAt: new Date(0).toISOString(),
});
const UPDATE_FIELDS: Readonly<Record<string, FieldSpec>> = {
  operation: { valid: operation },
  options: { valid: (rng) => ({ healthTimeoutMs: rng.int(0, 600_000) }) },
};

/** A valid request with one field anywhere in it replaced by a hostile value. */
function mutated(rng: Rng): Record<string, unknown> {
  const body = { operation: operation(rng), options: { healthTimeoutMs: 1_000 } } as Record<string, unknown>;
  const target = rng.pick(['operation', 'options']);
  const inner = body[target] as Record<string, unknown>;
  const key = rng.pick([...Object.keys(inner), 'spec', 'auth', '__proto__']);
  Object.defineProperty(inner, key, {
    value: hostileJsonValue(rng),
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return body;
}

describe(`listen-mode agent update routes fuzz (${SEED_TAG})`, () => {
  const { call } = useListenAgentCall(SECRET);
  /** Asserts a refusal: one of `statuses`, with a JSON `{error}` body; answers the body. */
  const expectRefusal = async (response: Response, statuses: number[], label: string) => {
    expect(statuses, `${label}: ${response.status}`).toContain(response.status);
    const body = (await response.json()) as { error?: unknown; details?: { parameter?: string } };
    expect(typeof body.error, label).toBe('string');
    return body;
  };

  afterAll(async () => {
    // Nothing hostile was journalled, whatever the batches sent.
    expect(await (await call('/api/operations')).json()).toEqual([]);
  });

  it('refuses every generated update body with 400, naming the body or the container', async () => {
    const rng = rngFor(SEED, 'listen-update-bodies');
    for (let i = 0; i < CASES; i++) {
      // No body past 1 MiB: the agent's 413 then closes the connection while the client still sends,
      // which fetch reports as a socket error (the same for every listen route: its bodyLimit).
      const body = genJsonBody(rng, UPDATE_FIELDS, { allowHuge: false });
      const label = `#${i} ${body.label}: ${preview(decoder.decode(body.bytes))}`;
      const response = await call('/api/containers/c1/update?watcher=local', {
        method: 'POST',
        ...(body.contentType !== undefined && { headers: { 'content-type': body.contentType } }),
        body: body.bytes,
      });
      const refusal = await expectRefusal(response, [400], label);
      expect(['body', 'operation.containerId'], label).toContain(refusal.details?.parameter);
    }
  });

  it('refuses every mutated update request with 400: the schema, else the path mismatch', async () => {
    const rng = rngFor(SEED, 'listen-update-mutations');
    for (let i = 0; i < CASES; i++) {
      const body = mutated(rng);
      const text = JSON.stringify(body);
      const label = `#${i}: ${preview(text)}`;
      const response = await call('/api/containers/c1/update?watcher=local', { method: 'POST', body: text });
      const refusal = await expectRefusal(response, [400], label);
      const shaped = v.safeParse(AgentUpdateRequestSchema, JSON.parse(text)).success;
      expect(refusal.details?.parameter, label).toBe(shaped ? 'operation.containerId' : 'body');
    }
  });

  it('answers 404 (400 for an overlong image id) for hostile watcher names, image ids and operation ids', async () => {
    const rng = rngFor(SEED, 'listen-update-names');
    for (let i = 0; i < CASES; i++) {
      const watcher = encodeComponent(rng.pick(HOSTILE_STRINGS));
      const segment = genPathSegment(rng);
      await expectRefusal(await call(`/api/images?watcher=${watcher}`), [404], `#${i} list ${watcher}`);
      const removal = await call(`/api/images/${segment}?watcher=${watcher}`, { method: 'DELETE' });
      await expectRefusal(removal, [400, 404], `#${i} remove ${preview(segment)}`);
      const cancel = await call(`/api/operations/${segment}/cancel`, { method: 'POST' });
      await expectRefusal(cancel, [404], `#${i} cancel ${preview(segment)}`);
    }
  });
});
