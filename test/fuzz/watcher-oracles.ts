/** Watcher routes (http-interface §2.2, §4.3): response schemas, the list query, inventory bodies and their oracle. */
import * as v from 'valibot';
import { ContainerSchema } from '../../shared/schemas/container';
import { type BodyCase, CONTENT_TYPES, genJsonBody, judgeBody, type QuerySpecs, type Rng } from './generators';

const Iso = v.pipe(v.string(), v.isoTimestamp());

/** http-interface §2.2. */
export const WatcherSchema = v.pipe(
  v.object({
    id: v.string(),
    type: v.string(),
    name: v.string(),
    configuration: v.record(v.string(), v.unknown()),
    agent: v.optional(v.string()),
    metadata: v.object({
      lastRunAt: v.optional(Iso),
      nextRunAt: v.optional(Iso),
      inventoryRefreshSupported: v.boolean(),
    }),
  }),
  v.check((watcher) => watcher.id === `${watcher.type}.${watcher.name}`, 'id is not <type>.<name>'),
);

/** http-interface §4.3, inventory result. */
export const InventoryResultSchema = v.object({
  context: v.object({
    operationId: v.pipe(v.string(), v.uuid()),
    source: v.object({ type: v.string(), name: v.string(), agent: v.optional(v.string()) }),
  }),
  containers: v.array(ContainerSchema),
  removedIds: v.array(v.string()),
  errors: v.array(v.object({ phase: v.string(), id: v.optional(v.string()), message: v.string() })),
  authoritative: v.boolean(),
});

/** GET /api/v1/watchers pages like every list (`{data, total, limit, offset, hasMore}`); bounds as the OpenAPI document gives them. */
export const WATCHER_QUERY: QuerySpecs = {
  limit: { kind: 'int', min: 0, max: 200 },
  offset: { kind: 'int', min: 0, max: 100_000 },
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The body is "an empty JSON object" (http-interface §4.3): `{}`, nothing at all, or anything else. */
export function genInventoryBody(rng: Rng): BodyCase {
  const roll = rng.next();
  const contentType = rng.bool(0.8) ? 'application/json' : rng.pick(CONTENT_TYPES).value;
  const text = (label: string, body: string): BodyCase => ({
    label,
    bytes: encoder.encode(body),
    contentType,
    huge: false,
  });
  if (roll < 0.35) return text('empty object', rng.pick(['{}', ' { } ', '{}\n']));
  if (roll < 0.45) return text('no body', rng.pick(['', ' ', '\ufeff', '\ufeff\ufeff']));
  const fields = {
    force: { valid: (r: Rng) => r.bool() },
    agent: { valid: () => 'local' },
    containers: { valid: () => [] },
  };
  return genJsonBody(rng, fields, { allowHuge: rng.bool(0.05) });
}

/**
 * 200 stands for "the body is acceptable": the route then decides (501, 404 or 200). No body at all
 * is acceptable whatever its Content-Type, as there is nothing to read; a second leading BOM is left open.
 */
export function inventoryVerdict(body: BodyCase): number[] {
  const text = decoder.decode(body.bytes);
  if (text.trim() === '') return [200];
  if (text.replace(/^\ufeff+/, '').trim() === '') return [200, 400, 415];
  return judgeBody(body, (value) => ({ statuses: [Object.keys(value).length === 0 ? 200 : 400] })).statuses;
}
