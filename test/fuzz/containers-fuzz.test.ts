/**
 * Fuzz of the container and watcher routes (http-interface §4.3, §4.8): every query parameter of
 * GET /api/v1/containers, every update-policy action and hostile bodies, inventory refresh bodies
 * and paths, the watcher list, and hostile path parameters, against a hub holding seeded records.
 * Invariants as in ./http-fuzz.test.ts: never a 5xx, 4xx JSON for invalid input, 2xx bodies that
 * validate against shared/schemas, and rejected requests change no stored state. Reproduce a
 * failure with FUZZ_SEED=<seed> npx vitest run test/fuzz/containers-fuzz.test.ts.
 */
import type * as v from 'valibot';
import { expect, it } from 'vitest';
import { type Container, ContainerSchema } from '../../shared/schemas/container';
import type { UpdatePolicy } from '../../shared/schemas/update-policy';
import { DAY_MS } from '../../shared/update/timestamp';
import { containerIdentity } from '../../shared/update/update-clock';
import type { HubClient } from '../support/hub-harness';
import {
  CONTAINER_QUERY,
  containerQueryExtras,
  expectContainerPage,
  genSegment,
  genValidContainerQuery,
  publicView,
  SECRET_MARK,
  seedContainers,
} from './container-generators';
import {
  budget,
  call,
  checkInvariants,
  checkQueryOutcome,
  describeContainerHubs,
  expectHealthyAfter,
  expectPage,
  expectSchema,
  PageSchema,
  shown,
  storedState,
} from './container-hub';
import { expectQuery, genQuery, preview, rngFor, seedFromEnv, seedHex } from './generators';
import {
  applyPolicy,
  genPolicyBody,
  type Policy,
  type PolicyContext,
  policyVerdict,
  type SnoozeDate,
} from './policy-generators';
import {
  genInventoryBody,
  InventoryResultSchema,
  inventoryVerdict,
  WATCHER_QUERY,
  WatcherSchema,
} from './watcher-oracles';

const SEED = seedFromEnv(process.env['FUZZ_SEED']);
const SEED_TAG = `seed ${seedHex(SEED)}`;
const RECORDS = seedContainers(rngFor(SEED, 'container-records'), 60);

const identityOf = (c: Container) => containerIdentity({ agent: c.agent, watcher: c.watcher, name: c.name });
const pendingOf = (c: Container | undefined): PolicyContext['pending'] =>
  c && c.updateKind.kind !== 'unknown' ? { kind: c.updateKind.kind, remoteValue: c.updateKind.remoteValue } : undefined;

/** The records, written through the hub's store; some identities hold a policy set through the API earlier. */
async function seedHub(hub: HubClient): Promise<void> {
  const { containers } = hub.hub.parts;
  for (const [index, record] of RECORDS.entries()) {
    const policy: UpdatePolicy | undefined =
      index % 10 === 0 ? { skipTags: ['9.9.9'], snoozeUntil: '2031-01-01T00:00:00.000Z' } : undefined;
    if (policy) await containers.setIdentityState(identityOf(record), { policy });
    await containers.put(policy ? { ...record, updatePolicy: policy } : record);
  }
}

const where = (batch: string, index: number, method: string, path: string, body?: { bytes: Uint8Array }) =>
  `[${SEED_TAG} ${batch} #${index}] ${method} ${preview(path, 200)}${body ? ` body=${preview(new TextDecoder().decode(body.bytes.slice(0, 300)))}` : ''}`;

describeContainerHubs(`container routes fuzz (${SEED_TAG})`, seedHub, (client) => {
  it('GET /api/v1/containers: every query parameter fuzzed against an independent oracle', async () => {
    const hub = client();
    const batch = 'containers-query';
    const rng = rngFor(SEED, batch);
    const before = await storedState(hub);
    const all = hub.hub.parts.containers.all();
    const byId = new Map(all.map((c) => [c.id, c]));
    const counts = { ok: 0, rejected: 0 };
    for (let i = 0; i < budget(hub, 450, 110); i++) {
      const generated = rng.bool(0.4)
        ? genValidContainerQuery(rng)
        : genQuery(rng, CONTAINER_QUERY, Date.now()).replace(/^\?/, '');
      const extras = containerQueryExtras(rng, [...byId.keys()]);
      const parts = rng.bool() ? [...extras, generated] : [generated, ...extras];
      const path = `/api/v1/containers?${parts.filter(Boolean).join('&')}`;
      const context = where(batch, i, 'GET', path);
      const seen = await call(hub, 'GET', path);
      checkInvariants(seen, context, SECRET_MARK);
      // Past Node's 16 KB header limit the socket refuses the request line itself.
      if (hub.mode === 'server' && path.length > 16_000) {
        expect([400, 414, 431], context).toContain(seen.status);
        continue;
      }
      const expected = expectQuery(CONTAINER_QUERY, new URL(path, 'http://hub.test').search);
      counts[checkQueryOutcome(seen, expected, context)]++;
      if (seen.status !== 200) continue;
      expectSchema(PageSchema, seen.json, context);
      if (expected.outcome === 'ok') expectPage(seen, expectContainerPage(all, expected.values), byId, context);
    }
    expect(counts.ok).toBeGreaterThan(counts.rejected / 4);
    expect(counts.rejected).toBeGreaterThan(0);
    expect(await storedState(hub)).toEqual(before);
  });

  it('PATCH update-policy refuses hostile bodies and unknown ids with 4xx JSON and changes nothing', async () => {
    const hub = client();
    const batch = 'policy-invalid';
    const rng = rngFor(SEED, batch);
    const before = await storedState(hub);
    const ids = RECORDS.map((c) => c.id);
    const dates = new Map<string, SnoozeDate>();
    let sent = 0;
    for (let i = 0; sent < budget(hub, 400, 100) && i < 20_000; i++) {
      const target = genSegment(rng, ids);
      const record = target.value === undefined ? undefined : hub.hub.parts.containers.get(target.value);
      const body = genPolicyBody(rng, Date.now(), dates, record?.updatePolicy.skipTags ?? []);
      const verdict = policyVerdict(body, { idKnown: target.known, pending: pendingOf(record), dates });
      if (verdict.statuses.includes(200)) continue;
      const path = `/api/v1/containers/${target.segment}/update-policy`;
      const context = where(batch, i, 'PATCH', path, body);
      const seen = await call(hub, 'PATCH', path, body);
      checkInvariants(seen, context, SECRET_MARK);
      expect(verdict.statuses, `${context}\n  ${shown(seen)}`).toContain(seen.status);
      sent++;
    }
    expect(sent).toBe(budget(hub, 400, 100));
    expect(await storedState(hub), `[${SEED_TAG} ${batch}] rejected requests changed the stored state`).toEqual(before);
  });

  it('PATCH update-policy: a mixed stream of every action and hostile bodies follows a model', async () => {
    const hub = client();
    const batch = 'policy-model';
    const rng = rngFor(SEED, batch);
    const { containers } = hub.hub.parts;
    const ids = RECORDS.map((c) => c.id);
    const model = new Map(
      ids.map((id) => [
        id,
        (containers.identityState(identityOf(containers.get(id) as Container)).policy ?? {}) as Policy,
      ]),
    );
    const dates = new Map<string, SnoozeDate>();
    let accepted = 0;
    const total = budget(hub, 300, 80);
    for (let i = 0; i < total; i++) {
      const target = rng.bool(0.75) ? { segment: rng.pick(ids), known: 'valid' as const } : genSegment(rng, ids);
      const id = target.known === 'valid' ? ('value' in target ? target.value : target.segment) : undefined;
      const before = id === undefined ? undefined : containers.get(id);
      const context: PolicyContext = { idKnown: target.known, pending: pendingOf(before), dates };
      const body = genPolicyBody(rng, Date.now(), dates, id ? (model.get(id)?.skipTags ?? []) : []);
      const verdict = policyVerdict(body, context);
      const path = `/api/v1/containers/${target.segment}/update-policy`;
      const label = where(batch, i, 'PATCH', path, body);
      const sentAt = Date.now();
      const seen = await call(hub, 'PATCH', path, body);
      const answeredAt = Date.now();
      checkInvariants(seen, label, SECRET_MARK);
      expect(verdict.statuses, `${label}\n  ${shown(seen)}`).toContain(seen.status);
      if (seen.status !== 200 || id === undefined || before === undefined) continue;
      accepted++;
      expectSchema(ContainerSchema, seen.json, label);
      const served = seen.json as Container;
      const expected = applyPolicy(model.get(id) ?? {}, verdict.patch ?? {}, context, (days) => {
        const at = Date.parse(served.updatePolicy.snoozeUntil ?? '');
        const inWindow = at >= sentAt + days * DAY_MS - 1000 && at <= answeredAt + days * DAY_MS + 1000;
        return inWindow
          ? (served.updatePolicy.snoozeUntil as string)
          : `${days} days after the request, not ${served.updatePolicy.snoozeUntil}`;
      });
      expect(served.updatePolicy, label).toEqual(expected);
      const { updatePolicy: _p, blockers: _b, ...unchanged } = served;
      const { updatePolicy: _q, blockers: _c, ...previous } = publicView(before);
      expect(unchanged, `fields other than the policy changed: ${label}`).toEqual(previous);
      model.set(id, expected);
    }
    expect(accepted, 'the generator must also produce accepted requests').toBeGreaterThan(total / 6);
    for (const id of ids) {
      const seen = await call(hub, 'GET', `/api/v1/containers/${id}`);
      expect((seen.json as Container).updatePolicy, `[${SEED_TAG} ${batch}] GET ${id} after the stream`).toEqual(
        model.get(id),
      );
    }
  });

  it('hostile {id} on every /containers/{id} route: 404 JSON, the record for a known one', async () => {
    const hub = client();
    const batch = 'container-ids';
    const rng = rngFor(SEED, batch);
    const before = await storedState(hub);
    const ids = RECORDS.map((c) => c.id);
    const routes = [
      ['GET', ''],
      ['GET', '/triggers'],
      ['GET', '/vulnerabilities'],
      ['POST', '/watch'],
    ] as const;
    for (let i = 0; i < budget(hub, 240, 60); i++) {
      const target = genSegment(rng, ids);
      const [method, suffix] = rng.pick(routes);
      const path = `/api/v1/containers/${target.segment}${suffix}`;
      const context = where(batch, i, method, path);
      const record = target.value === undefined ? undefined : hub.hub.parts.containers.get(target.value);
      const seen = await call(hub, method, path);
      // Watching needs the container's Docker Engine: the fuzz hub's watchers point at unreachable
      // sockets, and a watcher no longer configured is unavailable too: 503 either way, as the route documents.
      const unavailable = suffix === '/watch' && record !== undefined;
      if (!unavailable) checkInvariants(seen, context, SECRET_MARK);
      expect(seen.status, `${context}\n  ${shown(seen)}`).toBe(record === undefined ? 404 : unavailable ? 503 : 200);
      if (unavailable)
        expect((seen.json as { error?: string } | undefined)?.error ?? '', context).toMatch(
          /not available|did not answer/,
        );
      if (record && suffix === '') expect(seen.json, context).toEqual(publicView(record));
    }
    // Watching a container whose Engine is unreachable keeps its record as it was.
    expect(await storedState(hub)).toEqual(before);
  });

  it('GET /api/v1/watchers?limit&offset and /watchers/{type}/{name}: paging and hostile names', async () => {
    const hub = client();
    const batch = 'watchers';
    const rng = rngFor(SEED, batch);
    const all = ((await call(hub, 'GET', '/api/v1/watchers')).json as { data: { id: string }[] }).data.map((w) => w.id);
    expect(all).toEqual(['docker.fuzz', 'docker.alpha']);
    for (let i = 0; i < budget(hub, 200, 50); i++) {
      const path = `/api/v1/watchers${genQuery(rng, WATCHER_QUERY, Date.now())}`;
      const context = where(batch, i, 'GET', path);
      const seen = await call(hub, 'GET', path);
      checkInvariants(seen, context, SECRET_MARK);
      const expected = expectQuery(WATCHER_QUERY, new URL(path, 'http://hub.test').search);
      if (checkQueryOutcome(seen, expected, context) === 'rejected' || expected.outcome !== 'ok') continue;
      const [limit, offset] = [Number(expected.values.get('limit') ?? 0), Number(expected.values.get('offset') ?? 0)];
      const page = (seen.json as { data: unknown[] }).data;
      for (const watcher of page) expectSchema(WatcherSchema, watcher, context);
      const ids = all.slice(offset, limit === 0 ? undefined : offset + limit);
      expect(seen.json, context).toMatchObject({
        data: ids.map((id) => ({ id })),
        total: 2,
        limit,
        offset,
        hasMore: offset + ids.length < 2,
      });
    }
    for (let i = 0; i < budget(hub, 120, 30); i++) {
      const [type, name] = [genSegment(rng, ['docker']), genSegment(rng, ['fuzz', 'alpha'])];
      const agent = rng.bool(0.3) ? `/${genSegment(rng, ['local']).segment}` : '';
      const path = `/api/v1/watchers/${type.segment}/${name.segment}${agent}`;
      const context = where(batch, i, 'GET', path);
      const seen = await call(hub, 'GET', path);
      checkInvariants(seen, context, SECRET_MARK);
      const found = type.known === 'valid' && name.known === 'valid' && agent === '';
      expect(seen.status, `${context}\n  ${shown(seen)}`).toBe(found ? 200 : 404);
      if (found)
        expect(seen.json, context).toMatchObject({ id: `docker.${name.value}`, type: 'docker', name: name.value });
    }
  });

  it('POST /watchers/{type}/{name}/inventory: bodies and paths fuzzed; an unreachable Engine loses no record', async () => {
    const hub = client();
    const batch = 'inventory';
    const rng = rngFor(SEED, batch);
    const before = await storedState(hub);
    let refreshed = 0;
    for (let i = 0; i < budget(hub, 200, 50); i++) {
      const [type, name] = [genSegment(rng, ['docker']), genSegment(rng, ['fuzz', 'alpha'])];
      const body = genInventoryBody(rng);
      // http-interface §4.3 and §7: the body first, then the provider type (501), then the watcher (404).
      const routed = type.known === 'invalid' ? 501 : name.known === 'invalid' ? 404 : 200;
      const statuses = inventoryVerdict(body).map((status) => (status === 200 ? routed : status));
      const path = `/api/v1/watchers/${type.segment}/${name.segment}/inventory`;
      const context = where(batch, i, 'POST', path, body);
      const seen = await call(hub, 'POST', path, body);
      checkInvariants(seen, context, SECRET_MARK, [501]);
      expect(statuses, `${context}\n  ${shown(seen)}`).toContain(seen.status);
      if (seen.status !== 200) continue;
      refreshed++;
      expectSchema(InventoryResultSchema, seen.json, context);
      const kept = RECORDS.filter((c) => c.watcher === name.value).map((c) => c.id);
      const result = seen.json as v.InferOutput<typeof InventoryResultSchema>;
      expect({ ids: result.containers.map((c) => c.id).sort(), removedIds: result.removedIds }, context).toEqual({
        ids: kept.sort(),
        removedIds: [],
      });
      expect({ authoritative: result.authoritative, phases: result.errors.map((e) => e.phase) }, context).toEqual({
        authoritative: false,
        phases: ['list'],
      });
    }
    expect(refreshed).toBeGreaterThan(0);
    expect(
      await storedState(hub),
      `[${SEED_TAG} ${batch}] an inventory refresh that could not list changed the store`,
    ).toEqual(before);
    await expectHealthyAfter(hub, `[${SEED_TAG}] container routes`);
  });
});
