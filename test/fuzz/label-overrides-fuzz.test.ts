/**
 * Fuzz of the label-override routes (docs/label-overrides.md): PUT /containers/{id}/label-overrides
 * and POST /label-overrides with label maps drawn from known-valid and known-invalid entries and
 * hostile bodies, against a hub holding seeded records and unreachable watchers. Invariants as in
 * ./containers-fuzz.test.ts: never a 5xx, §2.15 JSON errors, 2xx bodies that validate, refusals
 * change nothing; accepted maps are what the container then shows with source `override`.
 * Reproduce a failure with FUZZ_SEED=<seed> npx vitest run test/fuzz/label-overrides-fuzz.test.ts.
 */
import { expect, it } from 'vitest';
import { ContainerSchema } from '../../shared/schemas/container';
import { GlobalLabelOverrideSchema } from '../../shared/schemas/label-override';
import { genSegment, seedContainers } from './container-generators';
import {
  budget,
  call,
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
import { HOSTILE_STRINGS, type Rng, rngFor } from './generators';
import { SEED, SEED_TAG } from './support/fuzz-seed';

const RECORDS = seedContainers(rngFor(SEED, 'label-override-records'), 20);

/** Entries whose verdict is known by construction: `schema` ones fail the body schema (400 before the id is looked up). */
type Verdict = 'valid' | 'value' | 'schema';
const ENTRIES: readonly [string, unknown, Verdict][] = [
  ['dd.watch', 'false', 'valid'],
  ['dd.watch', 'Yes', 'valid'],
  ['dd.watch.digest', '1', 'valid'],
  ['dd.tag.include', '^\\d+\\.\\d+\\.\\d+$', 'valid'],
  ['dd.tag.exclude', 'rc', 'valid'],
  ['dd.display.name', 'Fuzzed', 'valid'],
  ['dd.display.icon', 'mdi:docker', 'valid'],
  ['dd.group', 'fuzz-group', 'valid'],
  ['dd.webhook.enabled', 'off', 'valid'],
  ['dd.updatePolicy.skipTags', '1.0.0,2.0.0', 'valid'],
  ['dd.action.auto', 'true', 'valid'],
  ['dd.notification.include', 'http.ops', 'valid'],
  ['dd.depends_on', 'db', 'valid'],
  ['dd.rollback.window', '90s', 'valid'],
  ['dd.registry.lookup.image', 'ghcr.io/example/app', 'valid'],
  ['dd.watch', 'maybe', 'value'],
  ['dd.tag.include', '^(1', 'value'],
  ['dd.tag.exclude', 'a'.repeat(1000), 'value'],
  ['dd.rollback.window', 'soon', 'value'],
  ['dd.action.auto', 'yes', 'value'],
  ['dd.updatePolicy.maturityMinAgeDays', 'ten', 'value'],
  ['dd.registry.lookup.image', 'UPPER CASE::', 'value'],
  ['dd.hook.pre', 'touch /tmp/pwned', 'schema'],
  ['dd.hook.post', 'true', 'schema'],
  ['com.docker.compose.project', 'x', 'schema'],
  ['dd.unknown', 'x', 'schema'],
  ['__proto__', 'x', 'schema'],
  ['dd.watch', 1, 'schema'],
  ['dd.watch', null, 'schema'],
  ['dd.group', { a: 1 }, 'schema'],
  ['dd.display.name', 'x'.repeat(2000), 'schema'],
];

interface Drawn {
  json: string;
  verdict: Verdict;
  labels?: Record<string, string>;
}

/** A label map of 0–4 entries (later keys win in JSON, as in the map the hub reads); the worst entry decides. */
function genLabels(rng: Rng, onlyValid: boolean): Drawn {
  const picked = drawEntries(rng, ENTRIES, onlyValid);
  const verdicts = [...picked.values()].map(([, verdict]) => verdict);
  const verdict = verdicts.includes('schema') ? 'schema' : verdicts.includes('value') ? 'value' : 'valid';
  const json = `{${[...picked].map(([key, [value]]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`;
  const labels =
    verdict === 'valid'
      ? (Object.fromEntries([...picked].map(([k, [v]]) => [k, v])) as Record<string, string>)
      : undefined;
  return { json, verdict, ...(labels && { labels }) };
}

/** A body: mostly `{labels}` (and a selector for the global route), sometimes hostile. */
function genBody(rng: Rng, global: boolean, onlyValid = false): Drawn {
  const labels = genLabels(rng, onlyValid);
  const selector = global
    ? `"selector":${rng.pick(['{}', '{"name":"fz-*"}', '{"watcher":"fuzz","agent":"__local__"}'])},`
    : '';
  if (onlyValid || rng.bool(0.75)) {
    // The global route wants at least one label.
    const verdict =
      global && labels.verdict === 'valid' && Object.keys(labels.labels ?? {}).length === 0 ? 'schema' : labels.verdict;
    return { ...labels, json: `{${selector}"labels":${labels.json}}`, verdict };
  }
  const hostile = [
    '[]',
    'null',
    '"labels"',
    `{${selector}"labels":[]}`,
    `{${selector}"labels":${labels.json},"extra":1}`,
    `{${selector}}`,
    `{${selector}"labels":${JSON.stringify(rng.pick(HOSTILE_STRINGS))}}`,
    `{"selector":{"host":"x"},"labels":{"dd.watch":"true"}}`,
    '{"labels":',
  ];
  return { json: rng.pick(hostile), verdict: 'schema' };
}

describeContainerHubs('label-override routes under fuzz', putRecords(RECORDS), (client) => {
  it('refusals (hostile bodies, bad values, unknown ids) answer 4xx JSON and change nothing', async () => {
    const hub = client();
    const rng = rngFor(SEED, 'label-override-refusals');
    const before = await storedState(hub);
    const ids = RECORDS.map((c) => c.id);
    let sent = 0;
    for (let i = 0; sent < budget(hub, 300, 80) && i < 10_000; i++) {
      const global = rng.bool(0.3);
      const target = genSegment(rng, ids);
      const body = genBody(rng, global);
      const expected =
        body.verdict === 'schema'
          ? 400
          : !global && target.known === 'invalid'
            ? 404
            : body.verdict === 'value'
              ? 400
              : 0;
      if (expected === 0) continue;
      const path = global ? '/api/v1/label-overrides' : `/api/v1/containers/${target.segment}/label-overrides`;
      const context = `[${SEED_TAG} refusals #${i}] ${global ? 'POST' : 'PUT'} ${path} ${body.json.slice(0, 200)}`;
      await expectAnswer(hub, global ? 'POST' : 'PUT', path, body.json, context, expected);
      sent++;
    }
    expect(sent).toBe(budget(hub, 300, 80));
    expect(await storedState(hub), `[${SEED_TAG}] refusals changed the stored state`).toEqual(before);
  });

  it('accepted maps are stored whole and shown on the container with source override', async () => {
    const hub = client();
    const rng = rngFor(SEED, 'label-override-model');
    for (let i = 0; i < budget(hub, 60, 20); i++) {
      const record = rng.pick(RECORDS);
      const body = genBody(rng, false, true);
      const path = `/api/v1/containers/${record.id}/label-overrides`;
      const context = `[${SEED_TAG} model #${i}] PUT ${path} ${body.json}`;
      const seen = await expectAnswer(hub, 'PUT', path, body.json, context, 200);
      expectSchema(ContainerSchema, seen.json, context);
      const shownLabels =
        (seen.json as { effectiveLabels?: Record<string, { value: string; source: string }> }).effectiveLabels ?? {};
      for (const [key, value] of Object.entries(body.labels ?? {}))
        expect(shownLabels[key], `${context}: ${key}`).toEqual({ value, source: 'override' });
      const stored = await call(hub, 'GET', path);
      expect((stored.json as { labels: unknown }).labels, context).toEqual(body.labels);
    }
    const created = await call(hub, 'POST', '/api/v1/label-overrides', jsonBody(genBody(rng, true, true).json));
    if (created.status === 201) expectSchema(GlobalLabelOverrideSchema, created.json, 'POST /label-overrides');
    else expect(created.status, shown(created)).toBe(400); // an empty map was drawn
    await expectHealthyAfter(hub, `[${SEED_TAG}] after the fuzz`);
  });
});
