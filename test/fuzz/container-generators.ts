/**
 * Seed records, generators and independent oracles for the container and watcher routes (http-interface §2.4,
 * §2.5, §4.3, §4.8). The oracles are written from that page, not from the hub's code: where it
 * leaves a reading open, the reading chosen is said where it is made.
 */
import * as v from 'valibot';
import {
  CONTAINER_KIND_FILTERS,
  CONTAINER_SORTS,
  CONTAINER_STATUS_FILTERS,
} from '../../shared/containers/container-query';
import { CONTAINER_STATES } from '../../shared/docker/docker-host';
import { type Container, ContainerSchema } from '../../shared/schemas/container';
import { encodeComponent, HOSTILE_STRINGS, type QuerySpecs, RAW_URL_TOKENS, type Rng } from './generators';

/** Watchers configured on the fuzz hub (on Engines that are not there), and one whose records outlived its configuration. */
export const LIVE_WATCHERS = ['fuzz', 'alpha'] as const;
const WATCHERS = [...LIVE_WATCHERS, 'ghost'] as const;
const NAMES = [
  'web',
  'db',
  'cache',
  'Web',
  'w\u00e9b',
  '\u65e5\u672c',
  'api-1',
  'api-2',
  'worker.a',
  'z_last',
  'Alpha',
  'mq',
];
const NAMES_PER_WATCHER = NAMES.length;

/** Environment values that must never leave the hub: their keys are secrets by any reading. */
export const SECRET_KEYS = new Set(['API_TOKEN', 'DB_PASSWORD', 'AWS_SECRET_ACCESS_KEY']);
export const SECRET_MARK = 'fz-s3cr3t';

const BASE_MS = Date.UTC(2024, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();
const hex = (rng: Rng, length: number) => Array.from({ length }, () => '0123456789abcdef'[rng.int(0, 15)]).join('');

type Update = Pick<Container, 'updateAvailable' | 'updateKind' | 'result' | 'updateMaturityLevel'>;

function update(rng: Rng, tag: string, digest: string): Update {
  const level = rng.pick(['hot', 'mature', 'established', undefined] as const);
  const roll = rng.next();
  if (roll < 0.4) return { updateAvailable: false, updateKind: { kind: 'unknown' } };
  if (roll < 0.75) {
    const diff = rng.pick(['major', 'minor', 'patch', 'prerelease', undefined] as const);
    const remote = { major: '2.0.0', minor: '1.1.0', patch: '1.0.1', prerelease: '1.0.1-rc.1', none: '1.0.0-b2' }[
      diff ?? 'none'
    ];
    return {
      updateAvailable: true,
      updateKind: { kind: 'tag', localValue: tag, remoteValue: remote, ...(diff && { semverDiff: diff }) },
      result: { tag: remote, publishedAt: iso(BASE_MS + rng.int(0, 9e9)), publishedAtTrusted: rng.bool() },
      ...(level && { updateMaturityLevel: level }),
    };
  }
  const remote = `sha256:${hex(rng, 64)}`;
  return {
    updateAvailable: true,
    updateKind: { kind: 'digest', localValue: digest, remoteValue: remote },
    result: { tag, digest: remote },
    ...(level && { updateMaturityLevel: level }),
  };
}

/**
 * Records as a watch cycle stores them: every watcher, state, update kind and maturity level, some
 * with a failed check, env with secrets. Identities (watcher::name) are unique. Validated here.
 */
export function seedContainers(rng: Rng, count: number): Container[] {
  const out: Container[] = [];
  for (let i = 0; i < count; i++) {
    const watcher = WATCHERS[i % WATCHERS.length] as string;
    const round = Math.floor(i / WATCHERS.length);
    const name = `${NAMES[round % NAMES_PER_WATCHER]}${round >= NAMES_PER_WATCHER ? `-${round}` : ''}`;
    const semver = rng.bool(0.7);
    const tag = semver ? '1.0.0' : 'latest';
    const digest = `sha256:${hex(rng, 64)}`;
    const display = rng.bool(0.2) ? rng.pick(['Shop', 'zeta', '\u00c9cole', 'aaa', name.toUpperCase()]) : name;
    const record: Container = {
      id: hex(rng, 64),
      name,
      watcher,
      status: rng.pick(CONTAINER_STATES),
      displayName: display,
      watched: rng.bool(0.85),
      webhookEnabled: true,
      labels: display === name ? {} : { 'dd.display.name': display },
      env: [
        { key: 'MODE', value: rng.pick(['prod', 'dev']) },
        { key: rng.pick([...SECRET_KEYS]), value: `${SECRET_MARK}-${i}` },
      ],
      image: {
        id: `sha256:${hex(rng, 64)}`,
        registry: { url: rng.pick(['127.0.0.1:5000', 'ghcr.io', 'docker.io']) },
        name: rng.pick(['library/nginx', 'acme/app', 'x/y']),
        tag: { value: tag, semver },
        digest: { watch: !semver, repo: digest },
        architecture: 'amd64',
        os: 'linux',
        ...(rng.bool(0.7) && { created: iso(BASE_MS - rng.int(0, 9e9)) }),
      },
      ...update(rng, tag, digest),
      updatePolicy: {},
      ...(rng.bool(0.1) && {
        error: { phase: 'tags', kind: 'timeout', message: 'registry did not answer', at: iso(BASE_MS) },
      }),
      createdAt: iso(BASE_MS + rng.int(0, 9e9)),
      firstSeenAt: iso(BASE_MS + rng.int(0, 9e9)),
      ...(rng.bool(0.8) && { checkedAt: iso(BASE_MS + rng.int(0, 9e9)) }),
    };
    out.push(v.parse(ContainerSchema, record));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// GET /api/v1/containers (http-interface §4.8)

/**
 * In the order of http-interface §4.8, which is the order the first bad parameter is named in. Readings: the
 * boolean takes true/false/1/0 (as the OpenAPI document says); offset's upper bound is the one the
 * OpenAPI document gives (the interface sets none).
 */
export const CONTAINER_QUERY: QuerySpecs = {
  limit: { kind: 'int', min: 0, max: 200 },
  offset: { kind: 'int', min: 0, max: 10_000_000 },
  includeVulnerabilities: { kind: 'enum', values: ['true', 'false', '1', '0'] },
  sort: { kind: 'enum', values: CONTAINER_SORTS },
  order: { kind: 'enum', values: ['asc', 'desc'] },
  // The list route's own values (shared/containers/container-query.ts), as the spec's §4.8 lists them.
  status: { kind: 'enum', values: CONTAINER_STATUS_FILTERS },
  kind: { kind: 'enum', values: CONTAINER_KIND_FILTERS },
  watcher: { kind: 'text', maxLength: 128 },
  maturity: { kind: 'enum', values: ['hot', 'mature', 'established'] },
  containerIds: { kind: 'text', maxLength: 20_000, pattern: /^[A-Za-z0-9_.,-]*$/ },
};

/** Plausible values the generic generator does not know: real watcher names and real ids. */
export function containerQueryExtras(rng: Rng, ids: readonly string[]): string[] {
  const extras: string[] = [];
  if (rng.bool(0.3)) extras.push(`watcher=${encodeComponent(rng.pick([...WATCHERS, 'Fuzz', 'fuzz ', '']))}`);
  if (rng.bool(0.3)) {
    const some = rng.sample(ids, rng.int(0, 6));
    const list = rng.bool(0.2) ? [...some, rng.pick(['nope', '', ' ', hexLike(rng)])] : some;
    extras.push(`containerIds=${encodeComponent(list.join(rng.pick([',', ', ', ',,'])))}`);
  }
  if (rng.bool(0.15)) extras.push(`limit=${rng.int(1, 30)}`, `offset=${rng.int(0, 40)}`);
  return extras;
}

const hexLike = (rng: Rng) => 'f'.repeat(rng.int(1, 64));

/** A query of valid values only (the generic generator spoils most of ten parameters): exercises the filters and the sort. */
export function genValidContainerQuery(rng: Rng): string {
  const parts: string[] = [];
  for (const [name, spec] of Object.entries(CONTAINER_QUERY)) {
    if (!rng.bool(name === 'limit' || name === 'sort' ? 0.6 : 0.25)) continue;
    if (spec.kind === 'enum') parts.push(`${name}=${rng.pick(spec.values)}`);
    else if (name === 'limit') parts.push(`limit=${rng.pick([0, 1, 2, 5, 10, 200])}`);
    else if (name === 'offset') parts.push(`offset=${rng.pick([0, 1, 3, 10, 59, 60, 1000])}`);
  }
  return parts.join('&');
}

function matchesStatus(c: Container, status: string): boolean {
  if (status === 'update-available') return c.updateAvailable;
  if (status === 'up-to-date') return !c.updateAvailable;
  // Docker has no `stopped` state (http-interface §3.5 lists it among filter values): read as exited or never started.
  if (status === 'stopped') return c.status === 'exited' || c.status === 'created';
  return c.status === status;
}

function matchesKind(c: Container, kind: string): boolean {
  if (kind === 'all') return true;
  if (kind === 'watched' || kind === 'unwatched') return c.watched === (kind === 'watched');
  if (!c.updateAvailable) return false;
  if (kind === 'digest') return c.updateKind.kind === 'digest';
  return c.updateKind.kind === 'tag' && c.updateKind.semverDiff === kind;
}

/**
 * Sort keys. Readings of the interface: `name` is the name shown (displayName), without regard to letter case;
 * `age` is the container's creation time, `created` the image's build date (the container's when
 * the image has none). Which way `age` runs is not said: both are accepted.
 */
const SORT_KEYS: Record<string, (c: Container) => string | number> = {
  name: (c) => c.displayName.toLowerCase(),
  status: (c) => c.status,
  age: (c) => Date.parse(c.createdAt),
  created: (c) => Date.parse(c.image.created ?? c.createdAt),
};

export interface ContainerPageExpectation {
  /** Acceptable id sets of the whole filtered result (two when `containerIds` lists no id at all). */
  matching: Set<string>[];
  limit: number;
  offset: number;
  /** Acceptable key sequences of the page; undefined when no sort is asked for (any order). */
  keys: (string | number)[][] | undefined;
  key: ((c: Container) => string | number) | undefined;
}

export function expectContainerPage(all: readonly Container[], values: Map<string, string>): ContainerPageExpectation {
  const limit = Number(values.get('limit') ?? 0);
  const offset = Number(values.get('offset') ?? 0);
  const ids = values.get('containerIds');
  const listed = ids
    ?.split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  const filtered = (restrict: Set<string> | undefined) =>
    all.filter(
      (c) =>
        (!restrict || restrict.has(c.id)) &&
        (!values.has('status') || matchesStatus(c, values.get('status') ?? '')) &&
        (!values.has('kind') || matchesKind(c, values.get('kind') ?? '')) &&
        (!values.has('watcher') || c.watcher === values.get('watcher')) &&
        (!values.has('maturity') || c.updateMaturityLevel === values.get('maturity')),
    );
  // `containerIds=` restricts nothing; `containerIds=,` names no id: nothing, or no restriction, may be read.
  const variants =
    listed === undefined || ids === ''
      ? [filtered(undefined)]
      : listed.length === 0
        ? [filtered(new Set()), filtered(undefined)]
        : [filtered(new Set(listed))];
  const sort = values.get('sort');
  if (sort === undefined)
    return {
      matching: variants.map((list) => new Set(list.map((c) => c.id))),
      limit,
      offset,
      keys: undefined,
      key: undefined,
    };
  const key = SORT_KEYS[sort.replace(/^-/, '')] as (c: Container) => string | number;
  const order = values.get('order');
  const descending = order ? order === 'desc' : sort.startsWith('-');
  const page = (list: Container[], down: boolean) => {
    const sorted = list.map(key).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (down) sorted.reverse();
    return limit === 0 ? sorted.slice(offset) : sorted.slice(offset, offset + limit);
  };
  const directions = sort.replace(/^-/, '') === 'age' ? [descending, !descending] : [descending];
  return {
    matching: variants.map((list) => new Set(list.map((c) => c.id))),
    limit,
    offset,
    keys: variants.flatMap((list) => directions.map((down) => page(list, down))),
    key,
  };
}

/** A container as served: secrets redacted, everything else as stored. */
export function publicView(c: Container): Container {
  return {
    ...c,
    env: c.env.map(({ key, value }) => ({ key, value: SECRET_KEYS.has(key) ? '***' : value })),
    // Served, never stored: these hubs have no scanner, so nothing is scanned (docs/security-scanning.md).
    security: { status: 'not-scanned', summary: { critical: 0, high: 0, medium: 0, low: 0, unknown: 0 } },
  };
}

// ---------------------------------------------------------------------------------------------
// Path segments for {id}, {type} and {name}

export type Known = 'valid' | 'invalid';

/** Percent-encoding an unreserved character does not change the identifier (RFC 3986 2.3). */
function encodeOne(rng: Rng, text: string): string {
  const at = rng.int(0, text.length - 1);
  return `${text.slice(0, at)}%${text.charCodeAt(at).toString(16).toUpperCase()}${text.slice(at + 1)}`;
}

/** One of `known`, plainly or percent-encoded; a near miss; or hostile text that names nothing. */
export function genSegment(rng: Rng, known: readonly string[]): { segment: string; known: Known; value?: string } {
  const roll = rng.next();
  const value = rng.pick(known);
  if (roll < 0.35) return { segment: value, known: 'valid', value };
  if (roll < 0.42) return { segment: encodeOne(rng, value), known: 'valid', value };
  if (roll < 0.6) {
    const near = [
      value.toUpperCase(),
      `${value}%20`,
      `%20${value}`,
      `${value}%00`,
      `${value}x`,
      value.slice(1),
      `${value};x`,
    ];
    const segment = rng.pick(near.filter((item) => item !== value));
    return { segment, known: 'invalid' };
  }
  if (roll < 0.8) {
    const hostile = rng.pick(
      HOSTILE_STRINGS.filter((text) => text !== '' && !/^[.]+$/.test(text) && text !== '%2e%2e%2f'),
    );
    return { segment: encodeComponent(hostile), known: 'invalid' };
  }
  if (roll < 0.93) {
    const raw = rng.pick(RAW_URL_TOKENS.filter((token) => token !== '%2F' && token !== '%5C'));
    return { segment: raw + rng.pick(['', 'x', value.slice(0, 8)]), known: 'invalid' };
  }
  return { segment: 'i'.repeat(rng.pick([200, 2000, 8000])), known: 'invalid' };
}
