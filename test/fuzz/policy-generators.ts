/**
 * PATCH /api/v1/containers/{id}/update-policy (http-interface §2.5, §4.8): bodies for every action, hostile
 * bodies, the oracle that says what the hub must answer, and a model of the policy it keeps.
 */

import { DAY_MS } from '../../shared/update/timestamp';
import {
  type BodyCase,
  type BodyVerdict,
  CONTENT_TYPES,
  type FieldSpec,
  genJsonBody,
  HOSTILE_STRINGS,
  ISO_DATES_INVALID,
  judgeBody,
  type Rng,
} from './generators';

export const POLICY_ACTIONS = [
  'skip-current',
  'remove-skip',
  'clear-skips',
  'snooze',
  'unsnooze',
  'clear',
  'set-maturity-policy',
  'clear-maturity-policy',
] as const;

/** The extra fields each action takes (http-interface §4.8); any other field is refused, as a typo must not pass silently. */
const FIELDS: Record<string, readonly string[]> = {
  'remove-skip': ['kind', 'value'],
  snooze: ['days', 'snoozeUntil'],
  'set-maturity-policy': ['mode', 'minAgeDays'],
};

/** Bounds http-interface §2.5 leaves open, as shared/schemas/update-policy sets them: ten years of snooze, 256-character skip values. */
const SNOOZE_MAX_DAYS = 3650;
const SKIP_VALUE_MAX = 256;
const SKIP_LIST_MAX = 100;

export type DateClass = 'future' | 'past' | 'far' | 'invalid';
export interface SnoozeDate {
  cls: DateClass;
  /** The instant it names, for the valid ones. */
  ms?: number;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const dateOnly = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** `ms` written in local time of the +05:30 zone, to the second. */
function zoned(ms: number): string {
  const local = new Date(ms + 330 * 60_000);
  const date = `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  return `${date}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}+05:30`;
}

/** snoozeUntil values, each filed in `dates` with what it means an hour either side of `now`. */
export function genSnoozeDate(rng: Rng, now: number, dates: Map<string, SnoozeDate>): string {
  const file = (value: string, date: SnoozeDate) => {
    dates.set(value, date);
    return value;
  };
  const whole = (ms: number) => ms - (ms % 1000);
  switch (rng.int(0, 9)) {
    case 0:
    case 1: {
      const ms = whole(now + rng.pick([1, 2, 30, 365, 3000]) * DAY_MS + rng.int(0, DAY_MS));
      return file(rng.bool() ? new Date(ms).toISOString() : zoned(ms), { cls: 'future', ms });
    }
    case 2: {
      const day = dateOnly(now + rng.int(2, 3000) * DAY_MS);
      return file(day, { cls: 'future', ms: Date.parse(`${day}T00:00:00Z`) });
    }
    case 3:
    case 4: {
      const ms = whole(now - rng.pick([1, 30, 3000]) * DAY_MS - rng.int(3_600_000, DAY_MS));
      return file(rng.bool() ? new Date(ms).toISOString() : dateOnly(ms), { cls: 'past' });
    }
    case 5:
      return file(rng.bool() ? new Date(now + rng.int(3700, 20_000) * DAY_MS).toISOString() : '9999-12-31', {
        cls: 'far',
      });
    case 6:
      // Not dates: zoneless times, impossible days, the epoch (which reads as "unknown"), loose forms.
      return file(
        rng.pick(['2031-01-01T10:00', '2031-02-30', '2031-13-01', '1970-01-01T00:00:00Z', '2031-1-1', 'tomorrow']),
        {
          cls: 'invalid',
        },
      );
    default:
      return file(rng.pick([...ISO_DATES_INVALID, ...HOSTILE_STRINGS]), { cls: 'invalid' });
  }
}

const SKIP_VALUES = ['2.0.0', '1.1.0', '1.0.1', 'sha256:0000', '\u{1f433}', 'a'.repeat(SKIP_VALUE_MAX), 'v1', 'latest'];

/** Field generators for the generic body fuzz (./generators genJsonBody). */
export function policyFields(now: number, dates: Map<string, SnoozeDate>): Readonly<Record<string, FieldSpec>> {
  return {
    action: { valid: (rng) => rng.pick(POLICY_ACTIONS) },
    kind: { valid: (rng) => rng.pick(['tag', 'digest']) },
    value: { valid: (rng) => rng.pick(SKIP_VALUES) },
    days: { valid: (rng) => rng.pick([1, 7, 30, SNOOZE_MAX_DAYS]) },
    snoozeUntil: { valid: (rng) => genSnoozeDate(rng, now, dates) },
    mode: { valid: (rng) => rng.pick(['all', 'mature']) },
    minAgeDays: { valid: (rng) => rng.pick([1, 7, 365]) },
  };
}

function actionBody(
  rng: Rng,
  now: number,
  dates: Map<string, SnoozeDate>,
  skips: readonly string[],
): Record<string, unknown> {
  const action = rng.pick(POLICY_ACTIONS);
  if (action === 'remove-skip') {
    const value = skips.length > 0 && rng.bool(0.6) ? rng.pick(skips) : rng.pick(SKIP_VALUES);
    return { action, kind: rng.pick(['tag', 'digest']), value };
  }
  if (action === 'snooze') {
    return rng.bool(0.4)
      ? { action, days: rng.pick([1, 7, 30, 365, SNOOZE_MAX_DAYS]) }
      : { action, snoozeUntil: genSnoozeDate(rng, now, dates) };
  }
  if (action === 'set-maturity-policy')
    return { action, mode: rng.pick(['all', 'mature']), ...(rng.bool() && { minAgeDays: rng.pick([1, 7, 365]) }) };
  return { action };
}

/** One field made wrong: out of range, of another type, misspelt, doubled, missing. */
function spoil(rng: Rng, body: Record<string, unknown>): Record<string, unknown> {
  const out = { ...body };
  const pick = rng.int(0, 9);
  if (pick === 0)
    out['action'] = rng.pick([
      'SKIP-CURRENT',
      'skip_current',
      'snooze ',
      'remove',
      '',
      5,
      null,
      ['clear'],
      { action: 'clear' },
    ]);
  else if (pick === 1) delete out['action'];
  else if (pick === 2)
    out[rng.pick(['note', 'day', 'Days', 'minAge', 'until', 'kind', 'mode'])] = rng.pick([1, 'x', true]);
  else if (pick === 3) out['days'] = rng.pick([0, -1, SNOOZE_MAX_DAYS + 1, 1.5, '7', null, true, 1e21]);
  else if (pick === 4) out['snoozeUntil'] = rng.pick([0, 1.5e12, null, true, ['2031-01-01'], { date: '2031-01-01' }]);
  else if (pick === 5) out['minAgeDays'] = rng.pick([0, 366, 7.5, '7', null, -7]);
  else if (pick === 6) out['mode'] = rng.pick(['MATURE', 'none', '', null, 1]);
  else if (pick === 7) out['kind'] = rng.pick(['tags', 'Tag', '', null, 0]);
  else if (pick === 8) out['value'] = rng.pick(['', 'a'.repeat(SKIP_VALUE_MAX + 1), 5, null, ['2.0.0']]);
  else Object.assign(out, { action: 'snooze', days: 7, snoozeUntil: '2031-01-01' });
  return out;
}

/** A body: a valid action (half the time), one with a spoilt field, or anything the generic body fuzz makes. */
export function genPolicyBody(
  rng: Rng,
  now: number,
  dates: Map<string, SnoozeDate>,
  skips: readonly string[],
): BodyCase {
  const roll = rng.next();
  if (roll < 0.25) return genJsonBody(rng, policyFields(now, dates), { allowHuge: rng.bool(0.05) });
  const body = actionBody(rng, now, dates, skips);
  const value = roll < 0.7 ? body : spoil(rng, body);
  const contentType = rng.bool(0.9) ? 'application/json' : rng.pick(CONTENT_TYPES).value;
  return {
    label: roll < 0.7 ? 'action' : 'spoilt action',
    bytes: new TextEncoder().encode(JSON.stringify(value)),
    contentType,
    huge: false,
  };
}

export interface PolicyContext {
  idKnown: 'valid' | 'invalid';
  /** The update the container shows as pending (updateKind), if any. */
  pending: { kind: 'tag' | 'digest'; remoteValue: string } | undefined;
  dates: ReadonlyMap<string, SnoozeDate>;
}

const isInt = (value: unknown, min: number, max: number) =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

/**
 * What the hub must answer: the body is checked first (413, 400, 415: http-interface §7), then the container
 * (404), then whether the action applies now (400: nothing to skip, a snooze date not ahead or
 * more than ten years ahead). A 200 carries the action in `patch`.
 */
export function policyVerdict(body: BodyCase, context: PolicyContext): BodyVerdict {
  return judgeBody(body, (value) => {
    const action = value['action'];
    if (typeof action !== 'string' || !(POLICY_ACTIONS as readonly string[]).includes(action))
      return { statuses: [400] };
    const allowed = FIELDS[action] ?? [];
    if (Object.keys(value).some((key) => key !== 'action' && !allowed.includes(key))) return { statuses: [400] };
    let date: SnoozeDate | undefined;
    if (action === 'remove-skip') {
      const skip = value['value'];
      if (!['tag', 'digest'].includes(value['kind'] as string) || typeof skip !== 'string') return { statuses: [400] };
      if (skip.length < 1 || skip.length > SKIP_VALUE_MAX) return { statuses: [400] };
    } else if (action === 'snooze') {
      const hasDays = Object.hasOwn(value, 'days');
      if (hasDays === Object.hasOwn(value, 'snoozeUntil')) return { statuses: [400] };
      if (hasDays && !isInt(value['days'], 1, SNOOZE_MAX_DAYS)) return { statuses: [400] };
      if (!hasDays) {
        date = typeof value['snoozeUntil'] === 'string' ? context.dates.get(value['snoozeUntil']) : undefined;
        if (!date || date.cls === 'invalid') return { statuses: [400] };
      }
    } else if (action === 'set-maturity-policy') {
      if (!['all', 'mature'].includes(value['mode'] as string)) return { statuses: [400] };
      if (Object.hasOwn(value, 'minAgeDays') && !isInt(value['minAgeDays'], 1, 365)) return { statuses: [400] };
    }
    if (context.idKnown === 'invalid') return { statuses: [404] };
    if (action === 'skip-current' && !context.pending) return { statuses: [400] };
    if (date && date.cls !== 'future') return { statuses: [400] };
    return { statuses: [200], patch: value };
  });
}

export interface Policy {
  skipTags?: string[];
  skipDigests?: string[];
  snoozeUntil?: string;
  maturityMode?: string;
  maturityMinAgeDays?: number;
}

/**
 * The policy after an accepted action (http-interface §4.8), absent fields rather than empty lists. A snooze
 * by days ends `days` after the request: `snoozeByDays` checks the hub's instant and returns it.
 */
export function applyPolicy(
  policy: Policy,
  action: Record<string, unknown>,
  context: PolicyContext,
  snoozeByDays: (days: number) => string,
): Policy {
  const next: Policy = { ...policy };
  const setList = (key: 'skipTags' | 'skipDigests', list: string[]) => {
    if (list.length === 0) delete next[key];
    else next[key] = list;
  };
  switch (action['action']) {
    case 'skip-current': {
      const pending = context.pending as NonNullable<PolicyContext['pending']>;
      const key = pending.kind === 'tag' ? 'skipTags' : 'skipDigests';
      const list = policy[key] ?? [];
      if (!list.includes(pending.remoteValue)) setList(key, [...list, pending.remoteValue].slice(-SKIP_LIST_MAX));
      return next;
    }
    case 'remove-skip': {
      const key = action['kind'] === 'tag' ? 'skipTags' : 'skipDigests';
      setList(
        key,
        (policy[key] ?? []).filter((entry) => entry !== action['value']),
      );
      return next;
    }
    case 'clear-skips':
      setList('skipTags', []);
      setList('skipDigests', []);
      return next;
    case 'snooze': {
      const date = typeof action['snoozeUntil'] === 'string' ? context.dates.get(action['snoozeUntil']) : undefined;
      next.snoozeUntil =
        date?.ms !== undefined ? new Date(date.ms).toISOString() : snoozeByDays(action['days'] as number);
      return next;
    }
    case 'unsnooze':
      delete next.snoozeUntil;
      return next;
    case 'clear':
      return {};
    case 'set-maturity-policy':
      next.maturityMode = action['mode'] as string;
      // With mode `all` there is no gate: a minimum age would mean nothing.
      if (action['mode'] === 'all') delete next.maturityMinAgeDays;
      else next.maturityMinAgeDays = (action['minAgeDays'] as number | undefined) ?? 7;
      return next;
    default:
      delete next.maturityMode;
      delete next.maturityMinAgeDays;
      return next;
  }
}
