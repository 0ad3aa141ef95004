/**
 * Fuzz of the release-notes routes' query (docs/release-notes.md): hostile, long, duplicated and
 * almost-semver `from` and `to` against a real hub in memory and on a socket, its forge a fixture
 * GitHub API on loopback.
 *
 * Invariants: never a 5xx; a 400 exactly when the oracle says `from` is missing or either is not
 * semver, with an http-interface §2.15 body; otherwise a 200 whose releases are exactly the fixture's
 * releases after `from` up to `to`, oldest first, by an independent comparison. FUZZ_SEED=<seed> replays a run.
 */
import * as v from 'valibot';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../shared/schemas/error-body';
import { containerRecord } from '../support/container-fixture';
import { describeHubMatrix } from '../support/hub-harness';
import { type ReleaseApiServer, startReleaseApiServer } from '../support/release-api-server';
import {
  encodeComponent,
  firstQueryValues,
  HOSTILE_STRINGS,
  preview,
  RAW_URL_TOKENS,
  type Rng,
  rngFor,
} from './generators';
import { SEED, SEED_TAG } from './support/fuzz-seed';

const CONTAINER = 'f'.repeat(64);

/** v1.0.0 … v1.4.9, newest first. */
const VERSIONS: [number, number, number][] = [];
for (let minor = 4; minor >= 0; minor--) for (let patch = 9; patch >= 0; patch--) VERSIONS.push([1, minor, patch]);

/** The oracle's own reading of semver: three numbers of at most 9 digits, an optional `v`, prerelease, build. */
const SEMVER = /^[vV]?(\d{1,9})\.(\d{1,9})\.(\d{1,9})(-[0-9A-Za-z.-]{1,100})?(\+[0-9A-Za-z.-]{1,100})?$/;

function semver(text: string): { numbers: number[]; pre: boolean } | undefined {
  const match = SEMVER.exec(text);
  return match
    ? { numbers: [Number(match[1]), Number(match[2]), Number(match[3])], pre: match[4] !== undefined }
    : undefined;
}

function compareNumbers(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if ((a[i] as number) !== (b[i] as number)) return (a[i] as number) - (b[i] as number);
  return 0;
}

/** Stable fixture versions after `from` up to `to`: a stable version is above a prerelease of its own numbers. */
function expectedTags(from: { numbers: number[]; pre: boolean }, to: { numbers: number[]; pre: boolean }): string[] {
  return [...VERSIONS]
    .reverse()
    .filter((version) => {
      const overFrom = compareNumbers(version, from.numbers);
      const underTo = compareNumbers(version, to.numbers);
      return (overFrom > 0 || (overFrom === 0 && from.pre)) && (underTo < 0 || (underTo === 0 && !to.pre));
    })
    .map((version) => `v${version.join('.')}`);
}

function genVersionText(rng: Rng): string {
  const n = () => String(rng.pick([0, 1, 2, 3, 4, 5, 9, 10, 999_999_999, 1_000_000_000, 1234567890123]));
  const core = () => `${n()}.${n()}.${n()}`;
  switch (rng.int(0, 14)) {
    case 0:
      return rng.pick(HOSTILE_STRINGS);
    case 1:
      return rng.pick(RAW_URL_TOKENS);
    case 2:
      return `${rng.pick(['', 'v', 'V', 'app@', 'x-v', 'component/v', 'vv'])}${core()}`;
    case 3:
      return `${core()}-${rng.pick(['rc.1', 'alpha', 'beta.2', '', '.', 'a..b', 'x'.repeat(120), 'ümlaut'])}`;
    case 4:
      return `${core()}+${rng.pick(['build.5', '', '+', 'sha.abc'])}`;
    case 5:
      return rng.pick([`${n()}.${n()}`, n(), `${core()}.${n()}`, `${core()} `, ` ${core()}`]);
    case 6:
      return `1.${rng.int(0, 5)}.${rng.int(0, 10)}${'0'.repeat(rng.int(0, 140))}`;
    default:
      return `${rng.pick(['', 'v'])}1.${rng.int(0, 5)}.${rng.int(0, 10)}${rng.bool(0.2) ? '-rc.1' : ''}`;
  }
}

function genQuery(rng: Rng): string {
  const parts: string[] = [];
  for (const name of ['from', 'to']) {
    const count = rng.pick([0, 1, 1, 1, 2]);
    for (let i = 0; i < count; i++) {
      const value = genVersionText(rng);
      parts.push(`${name}=${RAW_URL_TOKENS.includes(value) ? value : encodeComponent(value)}`);
    }
  }
  if (rng.bool(0.2)) parts.push(`${rng.pick(['page', 'From', '__proto__'])}=${encodeComponent(genVersionText(rng))}`);
  return rng.shuffle(parts).join('&');
}

const env: Record<string, string> = {};
let forge: ReleaseApiServer;

beforeAll(async () => {
  forge = await startReleaseApiServer();
  env.DD_RELEASE_NOTES_GITHUB_API_URL = forge.url;
  forge.github(
    'fuzz/app',
    VERSIONS.map((version, i) => ({ tag: `v${version.join('.')}`, body: `notes ${i}`, date: '2026-01-01T00:00:00Z' })),
  );
});

afterAll(async () => {
  await forge?.close();
});

describeHubMatrix(
  `release notes fuzz (${SEED_TAG})`,
  (client) => {
    beforeAll(async () => {
      const record = containerRecord({
        id: CONTAINER,
        labels: { 'org.opencontainers.image.source': 'https://github.com/fuzz/app' },
      });
      await client().hub.parts.containers.put({
        ...record,
        image: { ...record.image, name: 'fuzz/app', tag: { value: '1.0.0-alpine', semver: true } },
        updateAvailable: true,
        updateKind: { kind: 'tag', localValue: '1.0.0-alpine', remoteValue: '1.2.0-alpine' },
      });
    });

    it('hostile from and to: 400 exactly when the oracle refuses them, else exactly the releases between', async () => {
      const rng = rngFor(SEED, `release-notes-${client().mode}`);
      let answered = 0;
      for (let i = 0; i < 400; i++) {
        const search = genQuery(rng);
        const path = `/api/v1/containers/${CONTAINER}/intermediate-release-notes?${search}`;
        const response = await client().request(path);
        const text = await response.text();
        const context = `[${SEED_TAG} #${i}] GET ${preview(path, 300)} -> ${response.status} ${preview(text, 300)}`;
        expect(response.status, context).toBeLessThan(500);
        // The oracle reads the query as the hub received it: the first value of each name.
        const values = firstQueryValues(new URL(path, 'http://hub').search);
        const fromText = values.get('from');
        const toText = values.get('to');
        const from = fromText === undefined || fromText.length > 128 ? undefined : semver(fromText);
        const to = toText === undefined ? semver('1.2.0') : toText.length > 128 ? undefined : semver(toText);
        if (!from || !to) {
          expect(response.status, context).toBe(400);
          expect(v.safeParse(ErrorBodySchema, JSON.parse(text)).success, context).toBe(true);
          continue;
        }
        expect(response.status, context).toBe(200);
        const body = JSON.parse(text) as { status: string; releases: { tag: string }[] };
        expect(body.status, context).toBe('ok');
        expect(
          body.releases.map((release) => release.tag),
          context,
        ).toEqual(expectedTags(from, to));
        answered++;
      }
      expect(answered).toBeGreaterThan(100);
    });

    it('hostile container ids answer 404 with a JSON body, never a forge request', async () => {
      const rng = rngFor(SEED, `release-notes-ids-${client().mode}`);
      const before = forge.requests.length;
      for (let i = 0; i < 100; i++) {
        const raw = rng.bool(0.5) ? rng.pick(RAW_URL_TOKENS) : encodeComponent(rng.pick(HOSTILE_STRINGS));
        const route = rng.pick(['release-notes', 'intermediate-release-notes?from=1.0.0']);
        const response = await client().request(`/api/v1/containers/x${raw}/${route}`);
        const text = await response.text();
        const context = `[${SEED_TAG} #${i}] ${preview(raw)} ${route} -> ${response.status} ${preview(text)}`;
        expect([400, 404], context).toContain(response.status);
        expect(v.safeParse(ErrorBodySchema, JSON.parse(text)).success, context).toBe(true);
      }
      expect(forge.requests.length).toBe(before);
    });
  },
  env,
);
