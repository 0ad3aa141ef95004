/** One day in milliseconds; every age and duration in this folder is counted in whole UTC days of this length. */
export const DAY_MS = 86_400_000;

/**
 * RFC 3339 / ISO 8601: a date alone (read as UTC midnight), or a date and time that carries its zone.
 * A time without a zone is refused: it would mean a different instant on every host.
 */
const TIMESTAMP_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2}))?$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Minutes east of UTC of a `Z`, `+hh:mm` or `+hhmm` suffix; undefined when out of range. */
function zoneOffsetMinutes(zone: string): number | undefined {
  if (zone === 'Z' || zone === 'z') return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(-2));
  if (hours > 23 || minutes > 59) return undefined;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}

/**
 * Unix milliseconds of an ISO 8601 timestamp from 1970 on, or undefined when it is not one.
 *
 * Parsed by hand rather than with Date.parse: engines accept loose strings differently (V8 reads `"1"`
 * as the year 2001 and `2024-02-30` as March 1st), and a bogus date must not open a maturity gate.
 */
export function parseIsoInstant(value: string | undefined): number | undefined {
  if (value === undefined || value.length > 64) return undefined;
  const match = TIMESTAMP_PATTERN.exec(value);
  if (!match) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const offset = zoneOffsetMinutes(zone);
  if (offset === undefined) return undefined;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  const ms = Date.UTC(year, month - 1, day, hour, minute, second, millis) - offset * 60_000;
  return ms >= 0 ? ms : undefined;
}

/**
 * A registry or user date as the update rules read it: like parseIsoInstant, but dates at or before
 * the Unix epoch read as undefined, since registries and reproducible builds use them
 * (`0001-01-01T00:00:00Z`, `1970-01-01T00:00:00Z`) to mean "unknown", never as a real publication date.
 */
export function parseTimestamp(value: string | undefined): number | undefined {
  const ms = parseIsoInstant(value);
  return ms !== undefined && ms > 0 ? ms : undefined;
}

/** The canonical stored form of an instant. */
export function toIsoString(ms: number): string {
  return new Date(ms).toISOString();
}
