/** An instant as the person's locale writes it, or a dash; `title` keeps the exact ISO text. */
export function when(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}

/** "3 minutes ago", "in 2 days": relative to now, for last-seen and expiry columns. */
export function relative(value: string | null | undefined, now = Date.now()): string {
  if (!value) return '—';
  const at = Date.parse(value);
  if (Number.isNaN(at)) return value;
  const seconds = Math.round((at - now) / 1000);
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of units)
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  return format.format(seconds, 'second');
}

/** How old a date is, in one unit ("3 days", "5 hours", "2 months"); a dash when unknown. */
export function ageWords(value: string | undefined, now = Date.now()): string {
  const at = value ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) return '—';
  const minutes = Math.max(0, Math.round((now - at) / 60_000));
  const units: [string, number][] = [
    ['year', 525_600],
    ['month', 43_200],
    ['day', 1_440],
    ['hour', 60],
    ['minute', 1],
  ];
  // Days up to two months ("45 days" says more than "1 month"), then months, then years.
  for (const [unit, size] of units) {
    if (unit === 'month' && minutes < 60 * 1_440) continue;
    if (unit === 'year' && minutes < 2 * 525_600) continue;
    const count = Math.floor(minutes / size);
    if (count >= 1) return `${count} ${unit}${count === 1 ? '' : 's'}`;
  }
  return 'just now';
}
