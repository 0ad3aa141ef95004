/**
 * Seeded, deterministic generators of hostile HTTP input for the hub fuzz suite, and the
 * oracles that say, from docs/http-interface.md alone, what the hub must answer to each input.
 *
 * Everything is driven by one 32-bit seed (mulberry32), so a failing case is reproduced by
 * running the suite again with the seed printed in its name (FUZZ_SEED=0x...).
 */
import * as v from 'valibot';
import { AUDIT_ACTIONS } from '../../shared/schemas/audit-entry';
import { LOG_LEVELS, type LogEntry, type LogLevel } from '../../shared/schemas/log-entry';
import { BELL_THRESHOLDS, NOTIFICATION_RULE_IDS, TriggerIdSchema } from '../../shared/schemas/notification-rule';
import { UPDATE_MODES } from '../../shared/schemas/settings';

// ---------------------------------------------------------------------------------------------
// PRNG

export const DEFAULT_SEED = 0x5eed2026;

/** Reads FUZZ_SEED (decimal or 0x-hex); the default keeps CI deterministic. */
export function seedFromEnv(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_SEED;
  const parsed = Number(value.trim());
  if (!Number.isInteger(parsed)) throw new Error(`FUZZ_SEED must be an integer, got ${value}`);
  return parsed >>> 0;
}

export const seedHex = (seed: number): string => `0x${(seed >>> 0).toString(16).padStart(8, '0')}`;

/** FNV-1a, to derive an independent stream per batch from the one seed. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** mulberry32: tiny, fast, good enough for fuzzing, and identical on every platform. */
export class Rng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max], inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  bool(probability = 0.5): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Some distinct items, in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < count && pool.length > 0) out.push(pool.splice(this.int(0, pool.length - 1), 1)[0] as T);
    return out;
  }

  shuffle<T>(items: readonly T[]): T[] {
    return this.sample(items, items.length);
  }
}

export const rngFor = (seed: number, batch: string): Rng => new Rng((seed ^ hashString(batch)) >>> 0);

// ---------------------------------------------------------------------------------------------
// Hostile value pools

export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** Strings that have broken parsers, validators, loggers and terminals somewhere. */
export const HOSTILE_STRINGS: readonly string[] = [
  '',
  ' ',
  '\t',
  'null',
  'undefined',
  'true',
  'false',
  'NaN',
  '[object Object]',
  ...PROTO_KEYS,
  'toString',
  'hasOwnProperty',
  'valueOf',
  '\u0000',
  'a\u0000b',
  '\u0001\u0002\u0003\u001f\u007f',
  '\r\n',
  'line1\nline2',
  '\u2028\u2029',
  '\u202eevil\u202c',
  '\u200f\u200e\u061c',
  '\u200b\ufeff',
  '\u0645\u0631\u062d\u0628\u0627',
  '\u05e9\u05dc\u05d5\u05dd',
  '\u65e5\u672c\u8a9e',
  '\u2126\u2248\u00e7\u221a',
  '\u{1f433}',
  '\u{1f469}\u200d\u{1f469}\u200d\u{1f467}\u200d\u{1f466}',
  '\u{1f3f3}\ufe0f\u200d\u{1f308}',
  '\ud800',
  '\udfff',
  'e\u0301',
  '\ufb01',
  '\u0130',
  '\u00df',
  '../../etc/passwd',
  '..\\..\\windows',
  '%00',
  '%ZZ',
  '%E0%A4%A',
  '%2e%2e%2f',
  '\u0024{7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  "' OR '1'='1",
  '%s%n%x',
  '\\',
  '"',
  "'",
  '`',
  'A'.repeat(300),
];

/** Raw JSON number-ish tokens, many of them not JSON at all. */
export const JSON_NUMBER_TOKENS: readonly string[] = [
  '0',
  '-0',
  '1',
  '-1',
  '1e309',
  '-1e309',
  '1e-400',
  '9007199254740993',
  '9007199254740991',
  '2.5',
  '0.1',
  '1e3',
  '123456789012345678901234567890',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '0b1',
  '0o7',
  '01',
  '1.',
  '.5',
  '+1',
  '1e',
  '--1',
  '1_000',
  'undefined',
  'tru',
  'nul',
  "'auto'",
];

/** Query-string text for integer parameters: out of range, not integers, not ASCII digits. */
export const QUERY_NUMBERS: readonly string[] = [
  '0',
  '-0',
  '1',
  '-1',
  '00',
  '007',
  '1e3',
  '1E3',
  '1.0',
  '1.5',
  '0x10',
  '0b1',
  '0o7',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e309',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '99999999999999999999',
  '0000000000000000001',
  '+1',
  ' 1',
  '1 ',
  '1_000',
  '\u0661\u0662\u0663',
  '\uff11\uff12',
  '2147483648',
  '-2147483649',
  '50',
  '200',
  '201',
  '1000',
  '1001',
  '1000000',
  '1000001',
  '',
];

/** Verbatim URL fragments: invalid or tricky percent-encodings, separators and plus signs. */
export const RAW_URL_TOKENS: readonly string[] = [
  '%ZZ',
  '%E0%A4%A',
  '%00',
  '%',
  '%%',
  '%2',
  '%C0%AF',
  '%ED%A0%80',
  '%FF',
  '%uD83D',
  '+',
  '++',
  '%20',
  '%2B',
  '%26',
  '%3D',
  '%23',
  '%2F',
  '%5C',
  '%0D%0A',
];

export const ISO_DATES_VALID: readonly string[] = [
  '2024-01-01',
  '2024-01-01T00:00:00Z',
  '2024-06-30T12:34:56.789Z',
  '2024-01-01T10:00:00+02:00',
  '2024-01-01T10:00:00-05:30',
  '1970-01-01T00:00:00Z',
  '2100-12-31T23:59:59Z',
  '2024-01-01T10:00',
];

export const ISO_DATES_INVALID: readonly string[] = [
  '',
  'now',
  'yesterday',
  '2024',
  '2024-1-1',
  '2024-13-01',
  '2024-00-10',
  '2024-01-32',
  '2024-01-01T25:00:00Z',
  '2024-01-01T99:99',
  '2024-01-01T',
  '2024-01-01Z',
  '20240101',
  '1704067200000',
  'NaN',
  '1e309',
  '-2024-01-01',
  '2024-01-01T10:00:00+25:00',
  '0x7E8',
  '2024-01-01T10:00:00Z'.repeat(4),
];

// ---------------------------------------------------------------------------------------------
// Text helpers

const LONE_SURROGATE = /\p{Cs}/gu;

/** encodeURIComponent throws on lone surrogates; URLs carry U+FFFD instead. */
export function encodeComponent(text: string): string {
  return encodeURIComponent(text.replace(LONE_SURROGATE, '\ufffd'));
}

/** application/x-www-form-urlencoded decoding as a lenient server does it: bad escapes stay literal. */
export function decodeQueryComponent(raw: string): string {
  const text = raw.replace(/\+/g, ' ');
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

/** The first value of every parameter of a serialized query (`?a=1&a=2` gives a=1). */
export function firstQueryValues(search: string): Map<string, string> {
  const out = new Map<string, string>();
  const query = search.startsWith('?') ? search.slice(1) : search;
  if (query === '') return out;
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const name = decodeQueryComponent(eq === -1 ? pair : pair.slice(0, eq));
    if (name === '' || out.has(name)) continue;
    out.set(name, eq === -1 ? '' : decodeQueryComponent(pair.slice(eq + 1)));
  }
  return out;
}

export function preview(text: string, max = 160): string {
  const shown = text.length > max ? `${text.slice(0, max)}...(${text.length} chars)` : text;
  return JSON.stringify(shown);
}

// ---------------------------------------------------------------------------------------------
// Query parameters: kinds, generators and the oracle

export type QueryKind =
  | { kind: 'int'; min: number; max: number }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'enumList'; values: readonly string[] }
  | { kind: 'text'; maxLength: number; pattern?: RegExp }
  | { kind: 'iso' };

export type QuerySpecs = Readonly<Record<string, QueryKind>>;

/** GET /api/v1/audit (http-interface §4.10). */
export const AUDIT_QUERY: QuerySpecs = {
  offset: { kind: 'int', min: 0, max: 1_000_000 },
  limit: { kind: 'int', min: 1, max: 200 },
  action: { kind: 'enum', values: AUDIT_ACTIONS },
  actions: { kind: 'enumList', values: AUDIT_ACTIONS },
  container: { kind: 'text', maxLength: 256 },
  from: { kind: 'iso' },
  to: { kind: 'iso' },
};

const COMPONENT: QueryKind = { kind: 'text', maxLength: 100, pattern: /^[A-Za-z0-9._:/-]+$/ };

/** GET /api/v1/log/entries (http-interface §4.6). */
export const LOG_ENTRIES_QUERY: QuerySpecs = {
  level: { kind: 'enum', values: LOG_LEVELS },
  component: COMPONENT,
  tail: { kind: 'int', min: 0, max: 1000 },
  since: { kind: 'int', min: 0, max: Number.MAX_SAFE_INTEGER },
};

/** WS /api/v1/log/stream (http-interface §4.6): level, component, tail. */
export const LOG_STREAM_QUERY: QuerySpecs = {
  level: { kind: 'enum', values: LOG_LEVELS },
  component: COMPONENT,
  tail: { kind: 'int', min: 0, max: 1000 },
};

const VALID_COMPONENTS = [
  'registry',
  'watcher.docker',
  'hub',
  'a',
  'store:audit',
  'x/y',
  'fuzz-comp_1',
  '.',
  'zz-none',
];
const VALID_CONTAINERS = ['web', 'db', 'cache', 'Web', 'w\u00e9b', 'a b', '\u65e5\u672c', 'nope'];

function validQueryText(rng: Rng, spec: QueryKind, now: number): string {
  switch (spec.kind) {
    case 'int': {
      const span = Math.min(spec.max - spec.min, 300);
      return String(rng.pick([spec.min, spec.max, spec.min + rng.int(0, span), spec.min + 1]));
    }
    case 'enum':
      return rng.pick(spec.values);
    case 'enumList':
      return rng.sample(spec.values, rng.int(1, 4)).join(',');
    case 'text':
      return spec.pattern ? rng.pick(VALID_COMPONENTS) : rng.pick(VALID_CONTAINERS);
    case 'iso':
      return rng.bool(0.5) ? rng.pick(ISO_DATES_VALID) : new Date(now + rng.int(-86_400_000, 86_400_000)).toISOString();
  }
}

/** A value the interface forbids for this kind, or a plainly hostile one. */
function invalidQueryText(rng: Rng, spec: QueryKind): string {
  switch (spec.kind) {
    case 'int':
      return rng.pick([
        '-1',
        String(spec.min - 1),
        String(spec.max + 1),
        'abc',
        '1.5',
        '1e3',
        '0x10',
        '',
        ' 1',
        '9'.repeat(20),
        'NaN',
      ]);
    case 'enum':
    case 'enumList':
      return rng.pick(['nope', (spec.values[0] ?? 'x').toUpperCase(), '', `${spec.values[0] ?? 'x'},bogus`, ',,,']);
    case 'text':
      return rng.bool(0.5) ? 'x'.repeat(spec.maxLength + 1) : rng.pick(['<script>', 'a b', '', '%', '\u0000']);
    case 'iso':
      return rng.pick(ISO_DATES_INVALID);
  }
}

/**
 * A query string over the given parameters: valid, invalid and hostile values, repeated names,
 * percent-encoded names, names without '=' and unknown names.
 */
export function genQuery(rng: Rng, specs: QuerySpecs, now: number): string {
  const names = Object.keys(specs);
  const parts: string[] = [];
  for (let i = rng.int(0, names.length + 2); i > 0; i--) {
    const name = rng.pick(names);
    const spec = specs[name] as QueryKind;
    const roll = rng.int(0, 9);
    const value =
      roll < 5 ? validQueryText(rng, spec, now) : roll < 8 ? invalidQueryText(rng, spec) : rng.pick(HOSTILE_STRINGS);
    const shownName = rng.bool(0.1) ? [...name].map((ch) => `%${ch.charCodeAt(0).toString(16)}`).join('') : name;
    parts.push(rng.bool(0.05) ? shownName : `${shownName}=${encodeComponent(value)}`);
  }
  if (rng.bool(0.1)) parts.push(`unknown=${encodeComponent(rng.pick(HOSTILE_STRINGS))}`);
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

type Validity = 'valid' | 'invalid' | 'either';

/** Whether the hub must accept a raw (decoded) value, independently of the hub's own code. */
function classifyQueryValue(spec: QueryKind, value: string | undefined): Validity {
  if (value === undefined) return 'valid';
  switch (spec.kind) {
    case 'int': {
      if (!/^-?\d{1,16}$/.test(value)) return 'invalid';
      const n = Number(value);
      return n >= spec.min && n <= spec.max ? 'valid' : 'invalid';
    }
    case 'enum':
      return spec.values.includes(value) ? 'valid' : 'invalid';
    case 'enumList': {
      if (value.length > 4096) return 'invalid';
      const items = value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean);
      return items.every((item) => spec.values.includes(item)) ? 'valid' : 'invalid';
    }
    case 'text':
      if (value.length > spec.maxLength) return 'invalid';
      if (spec.pattern && !spec.pattern.test(value)) return 'invalid';
      return 'valid';
    case 'iso': {
      // The hub reads dates strictly: a calendar date, or a date-time that carries its zone (a time
      // without one names a different instant on every host), from 1970 on.
      const match = /^(\d{4})-(\d{2})-(\d{2})([Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2}))?$/.exec(
        value,
      );
      if (!match) return 'invalid';
      const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
      const calendarOk =
        month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
      if (!calendarOk || year < 1970 || !Number.isFinite(Date.parse(value.replace(' ', 'T')))) return 'invalid';
      // Hours, minutes and zone offsets out of range are left to the hub either way.
      return match[4] === undefined ? 'valid' : 'either';
    }
  }
}

export type QueryExpectation =
  | { outcome: 'ok'; values: Map<string, string> }
  | { outcome: 'error'; parameter: string; values: Map<string, string> }
  | { outcome: 'either'; parameters: string[]; values: Map<string, string> };

/**
 * What the hub must answer: parameters are checked in their documented order and the first bad
 * one is named in the 400. An `either` value before it makes the outcome ambiguous.
 */
export function expectQuery(specs: QuerySpecs, search: string): QueryExpectation {
  const values = firstQueryValues(search);
  const ambiguous: string[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    const verdict = classifyQueryValue(spec, values.get(name));
    if (verdict === 'either') ambiguous.push(name);
    if (verdict === 'invalid') {
      return ambiguous.length === 0
        ? { outcome: 'error', parameter: name, values }
        : { outcome: 'either', parameters: [...ambiguous, name], values };
    }
  }
  return ambiguous.length === 0 ? { outcome: 'ok', values } : { outcome: 'either', parameters: ambiguous, values };
}

/** The log entries a filter selects, oldest first (http-interface §4.6), computed independently of the hub. */
export function expectedLogEntries(all: readonly LogEntry[], values: Map<string, string>): LogEntry[] {
  const level = values.get('level') as LogLevel | undefined;
  const component = values.get('component');
  const since = values.has('since') ? Number(values.get('since')) : undefined;
  const tail = values.has('tail') ? Number(values.get('tail')) : 100;
  const rank = (l: LogLevel) => LOG_LEVELS.indexOf(l);
  const matching = all.filter(
    (entry) =>
      (level === undefined || rank(entry.level) >= rank(level)) &&
      (component === undefined || entry.component.includes(component)) &&
      (since === undefined || entry.timestamp > since),
  );
  return tail >= matching.length ? matching : matching.slice(matching.length - tail);
}

// ---------------------------------------------------------------------------------------------
// Bodies

export interface BodyCase {
  label: string;
  bytes: Uint8Array<ArrayBuffer>;
  /** Undefined: no Content-Type header at all. */
  contentType: string | undefined;
  huge: boolean;
}

type ContentTypeClass = 'json' | 'not-json' | 'either';

export const CONTENT_TYPES: readonly { value: string | undefined; class: ContentTypeClass }[] = [
  { value: 'application/json', class: 'json' },
  { value: 'application/json; charset=utf-8', class: 'json' },
  { value: 'APPLICATION/JSON', class: 'json' },
  { value: 'application/json;charset=UTF-8', class: 'json' },
  { value: 'application/merge-patch+json', class: 'either' },
  { value: 'application/json; charset=utf-16', class: 'either' },
  { value: 'application/json, text/plain', class: 'either' },
  { value: 'text/json', class: 'either' },
  { value: undefined, class: 'not-json' },
  { value: '', class: 'not-json' },
  { value: 'text/plain', class: 'not-json' },
  { value: 'text/plain;charset=UTF-8', class: 'not-json' },
  { value: 'multipart/form-data; boundary=----fuzz', class: 'not-json' },
  { value: 'application/x-www-form-urlencoded', class: 'not-json' },
  { value: 'application/jsonp', class: 'not-json' },
  { value: 'application/xml', class: 'not-json' },
  { value: '*/*', class: 'not-json' },
  { value: 'json', class: 'not-json' },
];

export function contentTypeClass(value: string | undefined): ContentTypeClass {
  return CONTENT_TYPES.find((entry) => entry.value === value)?.class ?? 'either';
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const MAX_BODY_BYTES = 1024 * 1024;

/** A JSON value of the wrong shape: hostile numbers, strings, nested and prototype-polluting objects. */
export function hostileJsonValue(rng: Rng, depth = 0): unknown {
  const roll = rng.int(0, depth > 2 ? 6 : 9);
  switch (roll) {
    case 0:
      return rng.pick(HOSTILE_STRINGS);
    case 1:
      return rng.pick([0, -0, 1, -1, 2 ** 53 + 1, 1e308, -1e308, 0.1, 5e-324, 2 ** 31]);
    case 2:
      return null;
    case 3:
      return rng.pick(['true', 'false', '1', '0', 'yes', 'on']);
    case 4:
      return rng.pick([true, false]);
    case 5:
      return rng.pick(['auto', 'manual', 'notify', 'all', 'major', 'AUTO', 'Auto ', 'auto\u0000']);
    case 6:
      return rng.pick([[], {}, [true], ['auto'], [[]], [{}]]);
    case 7:
      return Array.from({ length: rng.int(1, 4) }, () => hostileJsonValue(rng, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = rng.int(1, 3); i > 0; i--) {
        const key = rng.pick([...PROTO_KEYS, ...HOSTILE_STRINGS.slice(0, 20), 'simpleTitle', 'enabled', 'updateMode']);
        Object.defineProperty(out, key, {
          value: hostileJsonValue(rng, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
  }
}

export interface FieldSpec {
  /** A value the interface allows for this field. */
  valid: (rng: Rng) => unknown;
}

function deepNesting(rng: Rng, levels: number): string {
  return rng.bool() ? '['.repeat(levels) + ']'.repeat(levels) : '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
}

function malform(rng: Rng, validJson: string): string {
  switch (rng.int(0, 11)) {
    case 0:
      return validJson.slice(0, rng.int(0, Math.max(0, validJson.length - 1)));
    case 1:
      return validJson.replace(/}$/, ',}');
    case 2:
      return validJson.replace(/"/g, "'");
    case 3:
      return `/* comment */${validJson}`;
    case 4:
      return `${validJson}${validJson}`;
    case 5:
      return `${validJson} trailing`;
    case 6:
      return validJson.replace(/"([^"]+)":/g, '$1:');
    case 7:
      return '{"unterminated';
    case 8:
      return '{"a":"\u0001\u0000raw control"}';
    case 9:
      return '\ufeff\ufeff{}';
    case 10:
      return '{"a":1}\u0000';
    default:
      return rng.pick(['{', '}', '[', ']', '{}}', '{"a":}', '{:1}', '{,}', 'nul', '"\\uZZZZ"', '"\\x41"', '{"a"::1}']);
  }
}

/** A JSON object with the given field names allowed. Categories are sampled with fixed weights. */
export function genJsonBody(
  rng: Rng,
  fields: Readonly<Record<string, FieldSpec>>,
  options: { allowHuge: boolean },
): BodyCase {
  const names = Object.keys(fields);
  const validObject = (): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const name of rng.sample(names, rng.int(0, names.length))) out[name] = (fields[name] as FieldSpec).valid(rng);
    return out;
  };
  const contentType = rng.bool(0.78) ? 'application/json' : rng.pick(CONTENT_TYPES).value;
  const text = (label: string, body: string, huge = false): BodyCase => ({
    label,
    bytes: encoder.encode(body),
    contentType,
    huge,
  });
  const roll = rng.next();
  if (roll < 0.2) return text('valid object', JSON.stringify(validObject()));
  if (roll < 0.42) {
    const object = validObject();
    for (const name of rng.sample(names, rng.int(1, 2))) object[name] = hostileJsonValue(rng);
    return text('wrong-typed field', JSON.stringify(object));
  }
  if (roll < 0.52) {
    const object = validObject();
    const key = rng.pick([...PROTO_KEYS, ...HOSTILE_STRINGS, `${rng.pick(names)} `, rng.pick(names).toUpperCase()]);
    // JSON.parse makes `__proto__` an own property; the text must say it literally.
    const extra = `${JSON.stringify(key.replace(LONE_SURROGATE, '\ufffd'))}:${JSON.stringify(hostileJsonValue(rng))}`;
    const base = JSON.stringify(object);
    return text('unknown key', base === '{}' ? `{${extra}}` : `${base.slice(0, -1)},${extra}}`);
  }
  if (roll < 0.6) {
    const value = rng.pick<unknown>([
      [],
      [validObject()],
      null,
      0,
      -1,
      'x',
      true,
      false,
      '',
      [[validObject()]],
      ['{}'],
    ]);
    return text('not an object', JSON.stringify(value));
  }
  if (roll < 0.74) return text('malformed JSON', malform(rng, JSON.stringify(validObject())));
  if (roll < 0.8) {
    const name = rng.pick(names);
    return text('raw token', `{${JSON.stringify(name)}:${rng.pick(JSON_NUMBER_TOKENS)}}`);
  }
  if (roll < 0.85) {
    const levels = 10_000;
    const nested = deepNesting(rng, levels);
    return text(`${levels} levels deep`, rng.bool() ? nested : `{${JSON.stringify(rng.pick(names))}:${nested}}`);
  }
  if (roll < 0.88 && options.allowHuge) {
    const size = rng.pick([200_000, 600_000, MAX_BODY_BYTES - 64, MAX_BODY_BYTES + 1, MAX_BODY_BYTES * 2]);
    const filler = rng.pick(['a', '\u{1f433}', '\\u0000', '\u00e9']);
    const unit = encoder.encode(filler).length;
    const name = rng.pick(names);
    return text(`~${size} byte string`, `{${JSON.stringify(name)}:"${filler.repeat(Math.ceil(size / unit))}"}`, true);
  }
  if (roll < 0.94) return text('empty body', rng.pick(['', ' ', '\r\n\t ', '\u00a0']));
  // Invalid UTF-8 inside and around JSON.
  const bad = rng.pick([
    [0xff],
    [0xc0, 0x80],
    [0xed, 0xa0, 0x80],
    [0x80],
    [0xf8, 0x88, 0x80, 0x80, 0x80],
    [0xfe, 0xff],
  ]);
  const name = rng.pick(names);
  const prefix = encoder.encode(`{${JSON.stringify(name)}:"`);
  const suffix = encoder.encode('"}');
  const bytes = rng.bool()
    ? new Uint8Array([...prefix, ...bad, ...suffix])
    : new Uint8Array([...bad, ...encoder.encode('{}')]);
  return { label: 'invalid UTF-8', bytes, contentType, huge: false };
}

// ---------------------------------------------------------------------------------------------
// Body oracles

/** Statuses the hub may answer; when 200 is among them, `patch` is what an accepted request changes. */
export interface BodyVerdict {
  statuses: number[];
  patch?: Record<string, unknown>;
}

type Shape = { ok: true; value: Record<string, unknown> } | { ok: false; status: number };

/** The steps every body route shares (http-interface §7): size, empty, media type, JSON syntax, object shape. */
function parseBodyText(body: BodyCase, text: string): Shape | { ok: 'either-type'; inner: Shape } {
  if (body.bytes.length > MAX_BODY_BYTES) return { ok: false, status: 413 };
  if (text.trim() === '') return { ok: false, status: 400 };
  const typeClass = contentTypeClass(body.contentType);
  if (typeClass === 'not-json') return { ok: false, status: 415 };
  let value: unknown;
  let inner: Shape;
  try {
    value = JSON.parse(text);
    inner =
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? { ok: true, value: value as Record<string, unknown> }
        : { ok: false, status: 400 };
  } catch {
    inner = { ok: false, status: 400 };
  }
  return typeClass === 'either' ? { ok: 'either-type', inner } : inner;
}

function judgeText(body: BodyCase, text: string, judge: (value: Record<string, unknown>) => BodyVerdict): BodyVerdict {
  const shape = parseBodyText(body, text);
  if (shape.ok === 'either-type') {
    const inner = shape.inner.ok ? judge(shape.inner.value) : { statuses: [shape.inner.status] };
    return { ...inner, statuses: [415, ...inner.statuses] };
  }
  return shape.ok ? judge(shape.value) : { statuses: [shape.status] };
}

/**
 * The body is decoded as UTF-8 (one leading BOM is not content). Whether a second leading BOM is
 * content is left open: undici's Request.text() strips every leading BOM, TextDecoder only one.
 */
export function judgeBody(body: BodyCase, judge: (value: Record<string, unknown>) => BodyVerdict): BodyVerdict {
  const text = decoder.decode(body.bytes);
  const strict = judgeText(body, text, judge);
  if (!text.startsWith('\ufeff')) return strict;
  const lenient = judgeText(body, text.replace(/^\ufeff+/, ''), judge);
  const patch = lenient.patch ?? strict.patch;
  return { statuses: [...new Set([...strict.statuses, ...lenient.statuses])], ...(patch && { patch }) };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export const SETTINGS_FIELDS: Readonly<Record<string, FieldSpec>> = {
  internetlessMode: { valid: (rng) => rng.bool() },
  updateMode: { valid: (rng) => rng.pick(UPDATE_MODES) },
  approvalRequired: { valid: (rng) => rng.bool() },
};

/** PATCH/PUT /api/v1/settings (http-interface §2.13, §4.12, and docs/approvals.md): only these fields, with their types. */
export function settingsVerdict(body: BodyCase): BodyVerdict {
  return judgeBody(body, (value) => {
    for (const key of Object.keys(value)) if (!Object.hasOwn(SETTINGS_FIELDS, key)) return { statuses: [400] };
    if (Object.hasOwn(value, 'internetlessMode') && typeof value['internetlessMode'] !== 'boolean')
      return { statuses: [400] };
    if (Object.hasOwn(value, 'updateMode') && !(UPDATE_MODES as readonly unknown[]).includes(value['updateMode']))
      return { statuses: [400] };
    if (Object.hasOwn(value, 'approvalRequired') && typeof value['approvalRequired'] !== 'boolean')
      return { statuses: [400] };
    return { statuses: [200], patch: value };
  });
}

const TRIGGER_IDS = ['smtp.main', 'slack.ops', 'ntfy.home', 'discord.x-1', 'mqtt.a_b'];

export const NOTIFICATION_FIELDS: Readonly<Record<string, FieldSpec>> = {
  enabled: { valid: (rng) => rng.bool() },
  bellEnabled: { valid: (rng) => rng.bool() },
  bellThreshold: { valid: (rng) => rng.pick(BELL_THRESHOLDS) },
  // Non-empty lists name triggers, and none is configured on this hub: those are refused (400).
  triggers: { valid: (rng) => (rng.bool(0.7) ? [] : rng.sample(TRIGGER_IDS, rng.int(1, 3))) },
  templates: {
    valid: (rng) =>
      rng.bool(0.7) ? {} : { [rng.pick(TRIGGER_IDS)]: { simpleTitle: rng.pick(HOSTILE_STRINGS), batchTitle: 'b' } },
  },
};

const TEMPLATE_FIELDS = ['simpleTitle', 'simpleBody', 'batchTitle'];
const isTriggerId = (value: unknown): boolean => v.is(TriggerIdSchema, value);

/**
 * Inputs that hit a bug already reproduced by a focused test (regression: templates-record): valibot's
 * record silently drops `__proto__`, `constructor` and `prototype` keys and accepts arrays as
 * objects. The generic fuzz leaves them to that test so the rest stays meaningful.
 */
export function hitsKnownNotificationBug(body: BodyCase): boolean {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(body.bytes).replace(/^\ufeff+/, ''));
  } catch {
    return false;
  }
  if (!isPlainObject(value) || !Object.hasOwn(value, 'templates')) return false;
  const templates = value['templates'];
  if (Array.isArray(templates)) return true;
  if (!isPlainObject(templates)) return false;
  return Object.keys(templates).some(
    (key) => (PROTO_KEYS as readonly string[]).includes(key) || Array.isArray(templates[key]),
  );
}

/**
 * PATCH /api/v1/notifications/{id} (http-interface §2.8, §4.9). The body is checked first (400/415), then
 * the rule id (404), then the named triggers, none of which exists here (400).
 */
export function notificationVerdict(body: BodyCase, idKnown: Validity): BodyVerdict {
  return judgeBody(body, (value) => {
    for (const key of Object.keys(value)) if (!Object.hasOwn(NOTIFICATION_FIELDS, key)) return { statuses: [400] };
    for (const key of ['enabled', 'bellEnabled'])
      if (Object.hasOwn(value, key) && typeof value[key] !== 'boolean') return { statuses: [400] };
    if (
      Object.hasOwn(value, 'bellThreshold') &&
      !(BELL_THRESHOLDS as readonly unknown[]).includes(value['bellThreshold'])
    ) {
      return { statuses: [400] };
    }
    let namesTriggers = false;
    if (Object.hasOwn(value, 'triggers')) {
      const triggers = value['triggers'];
      if (!Array.isArray(triggers) || triggers.length > 100 || !triggers.every(isTriggerId)) return { statuses: [400] };
      namesTriggers ||= triggers.length > 0;
    }
    if (Object.hasOwn(value, 'templates')) {
      const templates = value['templates'];
      if (!isPlainObject(templates)) return { statuses: [400] };
      for (const [key, template] of Object.entries(templates)) {
        if (!isTriggerId(key) || !isPlainObject(template)) return { statuses: [400] };
        for (const [field, text] of Object.entries(template)) {
          if (!TEMPLATE_FIELDS.includes(field) || typeof text !== 'string' || text.length > 4096)
            return { statuses: [400] };
        }
      }
      namesTriggers ||= Object.keys(templates).length > 0;
    }
    if (idKnown === 'invalid') return { statuses: [404] };
    const after: BodyVerdict = namesTriggers ? { statuses: [400] } : { statuses: [200], patch: value };
    return idKnown === 'either' ? { ...after, statuses: [404, ...after.statuses] } : after;
  });
}

// ---------------------------------------------------------------------------------------------
// Path segments

/** A path segment for {id}: valid ids (plain or percent-encoded), near misses and hostile text. */
export function genRuleIdSegment(rng: Rng): { segment: string; known: Validity } {
  const roll = rng.next();
  if (roll < 0.3) return { segment: rng.pick(NOTIFICATION_RULE_IDS), known: 'valid' };
  if (roll < 0.38) {
    // Percent-encoding unreserved characters does not change the identifier (RFC 3986 2.3).
    const id = rng.pick(NOTIFICATION_RULE_IDS);
    const at = rng.int(0, id.length - 1);
    const encoded = `%${id.charCodeAt(at).toString(16).toUpperCase()}`;
    return { segment: id.slice(0, at) + encoded + id.slice(at + 1), known: 'valid' };
  }
  if (roll < 0.55) {
    const id = rng.pick(NOTIFICATION_RULE_IDS);
    const near = rng.pick([
      id.toUpperCase(),
      `${id}%20`,
      `%20${id}`,
      `${id}%00`,
      `${id}x`,
      id.slice(1),
      `${id}%2Fx`,
      `${id};x`,
      `${id}%3Bx`,
      `${id}%252D`,
    ]);
    return { segment: near, known: 'invalid' };
  }
  if (roll < 0.75) {
    const hostile = rng.pick(
      HOSTILE_STRINGS.filter((text) => text !== '' && !/^[.]+$/.test(text) && text !== '%2e%2e%2f'),
    );
    return { segment: encodeComponent(hostile), known: 'invalid' };
  }
  if (roll < 0.92)
    return {
      segment:
        rng.pick(RAW_URL_TOKENS.filter((token) => token !== '%2F' && token !== '%5C')) +
        rng.pick(['', 'x', 'update-available']),
      known: 'invalid',
    };
  return { segment: 'i'.repeat(rng.pick([200, 2000, 8000])), known: 'invalid' };
}

/** A segment for unknown-path fuzz: never a dot segment, never a separator. */
export function genPathSegment(rng: Rng): string {
  const roll = rng.next();
  if (roll < 0.45) return encodeComponent(rng.pick(HOSTILE_STRINGS.filter((text) => !/^\.+$/.test(text))));
  if (roll < 0.75)
    return (
      rng.pick(RAW_URL_TOKENS.filter((token) => token !== '%2F' && token !== '%5C')) +
      encodeComponent(rng.pick(HOSTILE_STRINGS.slice(0, 30)))
    );
  if (roll < 0.9) return encodeComponent(rng.pick(['\u{1f433}', '\u65e5', 'a'])).repeat(rng.int(1, 40));
  return `x${'a'.repeat(rng.pick([512, 4096, 8192]))}`;
}

// ---------------------------------------------------------------------------------------------
// Header values (fetch accepts only Latin-1, no CR/LF/NUL)

export function genHeaderValue(rng: Rng): string {
  const roll = rng.next();
  if (roll < 0.3)
    return rng.pick([
      'Bearer ',
      'Bearer',
      'Basic Og==',
      'Bearer null',
      'bearer x',
      'Negotiate',
      'Bearer \u00ff\u00fe',
      'Bearer a b c',
    ]);
  if (roll < 0.6) {
    let out = '';
    for (let i = rng.int(1, 64); i > 0; i--)
      out += String.fromCharCode(rng.pick([rng.int(0x20, 0x7e), rng.int(0xa0, 0xff), 0x09]));
    return out.trim() === '' ? 'x' : out;
  }
  if (roll < 0.8) return `Bearer ${'A'.repeat(rng.pick([100, 1000]))}`;
  return rng.pick([
    '\u00e9t\u00e9',
    '"quoted"',
    '\\',
    '%00',
    '%E0%A4%A',
    '<script>',
    '() { :; }; echo pwned',
    '*/*;q=0.8, application/json;q=NaN',
  ]);
}
