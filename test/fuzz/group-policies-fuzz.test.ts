/**
 * Fuzz of the group-policy and rollout routes (docs/group-policies.md): PUT /group-policies/{scope}/{name}
 * with bodies drawn from known-valid and known-invalid fields and hostile bodies, under drawn scopes
 * and names; POST /rollouts and the rollout transitions with hostile bodies and ids; against a hub
 * holding seeded records and unreachable watchers. Invariants as in ./containers-fuzz.test.ts: never
 * a 5xx, §2.15 JSON errors, 2xx bodies that validate, refusals change nothing; an accepted policy is
 * what GET then answers, field for field.
 * Reproduce a failure with FUZZ_SEED=<seed> npx vitest run test/fuzz/group-policies-fuzz.test.ts.
 */
import { expect, it } from 'vitest';
import { GroupPolicySchema } from '../../shared/schemas/group-policy';
import { RolloutSchema } from '../../shared/schemas/rollout';
import { SECRET_MARK, seedContainers } from './container-generators';
import {
  budget,
  call,
  checkInvariants,
  describeContainerHubs,
  drawEntries,
  expectAnswer,
  expectHealthyAfter,
  expectSchema,
  jsonBody,
  putRecords,
  shown,
  storedState,
} from './container-hub';
import { encodeComponent, HOSTILE_STRINGS, type Rng, rngFor } from './generators';
import { SEED, SEED_TAG } from './support/fuzz-seed';

const RECORDS = seedContainers(rngFor(SEED, 'group-policy-records'), 20);

type Verdict = 'valid' | 'invalid';
/** One field of the body with its verdict by construction. */
const FIELDS: readonly [string, unknown, Verdict][] = [
  ['updateMode', 'auto', 'valid'],
  ['updateMode', 'notify', 'valid'],
  ['updateMode', 'always', 'invalid'],
  ['updateMode', null, 'invalid'],
  ['approvalRequired', true, 'valid'],
  ['approvalRequired', 'true', 'invalid'],
  ['maturityMode', 'mature', 'valid'],
  ['maturityMode', 'ripe', 'invalid'],
  ['maturityMinAgeDays', 7, 'valid'],
  ['maturityMinAgeDays', 0, 'invalid'],
  ['maturityMinAgeDays', 1.5, 'invalid'],
  ['maturityMinAgeDays', 1e9, 'invalid'],
  ['windows', [{ start: '22:00', end: '04:00' }], 'valid'],
  ['windows', [{ days: ['sat', 'sun'], start: '01:00', end: '05:30' }], 'valid'],
  ['windows', [], 'valid'],
  ['windows', [{ start: '24:00', end: '04:00' }], 'invalid'],
  ['windows', [{ days: [], start: '01:00', end: '02:00' }], 'invalid'],
  ['windows', [{ days: ['someday'], start: '01:00', end: '02:00' }], 'invalid'],
  ['windows', [{ start: '01:00' }], 'invalid'],
  ['windows', Array.from({ length: 15 }, () => ({ start: '01:00', end: '02:00' })), 'invalid'],
  ['rollout', {}, 'valid'],
  ['rollout', { canaryHost: 'edge-1', waveSize: 3, pauseSeconds: 60, automatic: true }, 'valid'],
  ['rollout', { waveSize: 0 }, 'invalid'],
  ['rollout', { pauseSeconds: -1 }, 'invalid'],
  ['rollout', { waves: 2 }, 'invalid'],
  ['rollout', { canaryHost: '' }, 'invalid'],
  ['unknown', 1, 'invalid'],
];
const NAMES: readonly [string, Verdict][] = [
  ['shop', 'valid'],
  ['__local__', 'valid'],
  ['edge-1', 'valid'],
  ['caf%C3%A9', 'valid'],
  ['a%20b', 'invalid'],
  ['%2F', 'invalid'],
  ['x'.repeat(129), 'invalid'],
];

interface Drawn {
  json: string;
  verdict: Verdict;
  body?: Record<string, unknown>;
}

function genBody(rng: Rng, onlyValid: boolean): Drawn {
  const picked = drawEntries(rng, FIELDS, onlyValid);
  const body = Object.fromEntries([...picked].map(([key, [value]]) => [key, value]));
  const verdict = [...picked.values()].some(([, one]) => one === 'invalid') ? 'invalid' : 'valid';
  if (onlyValid || rng.bool(0.8)) return { json: JSON.stringify(body), verdict, body };
  const hostile = ['[]', 'null', '"x"', '{"updateMode":', JSON.stringify({ rollout: rng.pick(HOSTILE_STRINGS) })];
  return { json: rng.pick(hostile), verdict: 'invalid' };
}

describeContainerHubs('group-policy and rollout routes under fuzz', putRecords(RECORDS), (client) => {
  it('refusals (bad scopes, names, bodies; rollouts of nothing; unknown rollouts) answer 4xx JSON and change nothing', async () => {
    const hub = client();
    const rng = rngFor(SEED, 'group-policy-refusals');
    const before = await storedState(hub);
    let sent = 0;
    for (let i = 0; sent < budget(hub, 300, 80) && i < 10_000; i++) {
      const [name, nameVerdict] = rng.pick(NAMES);
      const scope = rng.pick(['group', 'agent', 'team', 'GROUP']);
      const body = genBody(rng, false);
      // The body is checked before the route reads its path: a bad body is 400 whatever the scope.
      const expected =
        body.verdict === 'invalid'
          ? 400
          : scope !== 'group' && scope !== 'agent'
            ? 404
            : nameVerdict === 'invalid'
              ? 400
              : 0;
      if (expected === 0) continue;
      const path = `/api/v1/group-policies/${scope}/${name}`;
      const context = `[${SEED_TAG} refusals #${i}] PUT ${path} ${body.json.slice(0, 200)}`;
      await expectAnswer(hub, 'PUT', path, body.json, context, expected);
      sent++;
    }
    for (let i = 0; i < budget(hub, 60, 20); i++) {
      const hostile = rng.pick(HOSTILE_STRINGS);
      const body = rng.pick([
        JSON.stringify({ image: `fuzz/none-${i}` }),
        JSON.stringify({ image: hostile }),
        JSON.stringify({ image: 'x', waveSize: rng.pick([0, -1, 1.5, 'two', 1e9]) }),
        JSON.stringify({ image: 'x', extra: hostile }),
        '[]',
        '{"image":',
      ]);
      const context = `[${SEED_TAG} rollouts #${i}] POST /api/v1/rollouts ${body.slice(0, 200)}`;
      const seen = await call(hub, 'POST', '/api/v1/rollouts', jsonBody(body));
      checkInvariants(seen, context, SECRET_MARK);
      expect([400, 409], `${context}\n  ${shown(seen)}`).toContain(seen.status);
      const action = rng.pick(['pause', 'resume', 'abort']);
      const id = encodeComponent(hostile.slice(0, 100)) || 'x';
      const transition = await call(hub, 'POST', `/api/v1/rollouts/${id}/${action}`);
      checkInvariants(transition, `${context} ${action}`, SECRET_MARK);
      expect(transition.status, shown(transition)).toBe(404);
    }
    expect(await storedState(hub), `[${SEED_TAG}] refusals changed the stored state`).toEqual(before);
  });

  it('accepted policies are stored whole and read back field for field; cleared ones are gone', async () => {
    const hub = client();
    const rng = rngFor(SEED, 'group-policy-model');
    for (let i = 0; i < budget(hub, 60, 20); i++) {
      const [name] = rng.pick(NAMES.filter(([, verdict]) => verdict === 'valid'));
      const scope = rng.pick(['group', 'agent']);
      const body = genBody(rng, true);
      const path = `/api/v1/group-policies/${scope}/${name}`;
      const context = `[${SEED_TAG} model #${i}] PUT ${path} ${body.json}`;
      const seen = await expectAnswer(hub, 'PUT', path, body.json, context, 200);
      expectSchema(GroupPolicySchema, seen.json, context);
      const { rollout, ...rest } = body.body ?? {};
      expect(seen.json, context).toMatchObject({ scope, name: decodeURIComponent(name), ...rest });
      if (rollout !== undefined)
        expect((seen.json as { rollout: unknown }).rollout, context).toMatchObject(rollout as object);
      expect((await call(hub, 'GET', path)).json, context).toEqual(seen.json);
      if (rng.bool(0.3)) {
        expect((await call(hub, 'DELETE', path)).status, context).toBe(200);
        expect((await call(hub, 'GET', path)).status, context).toBe(404);
      }
    }
    const listed = await call(hub, 'GET', '/api/v1/group-policies');
    for (const policy of (listed.json as { data: unknown[] }).data) expectSchema(GroupPolicySchema, policy, 'list');
    const rollouts = await call(hub, 'GET', '/api/v1/rollouts?limit=0');
    for (const rollout of (rollouts.json as { data: unknown[] }).data) expectSchema(RolloutSchema, rollout, 'rollouts');
    await expectHealthyAfter(hub, `[${SEED_TAG}] after the fuzz`);
  });
});
