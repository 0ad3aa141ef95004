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
