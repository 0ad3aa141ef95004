// The words of a list row (issue 28 item 2): pure, so they are tested without a browser.
import type { Container } from '../../api';

/** The image as written, registry host first (`127.0.0.1:5000/team/app:1.0.0`): the copy and the hover. */
export function fullReference(c: Container): string {
  const registry = c.image.registry.url ? `${c.image.registry.url}/` : '';
  return `${registry}${c.image.name}:${c.image.tag.value}`;
}

/** The repository without the registry host (`team/app`; Docker Hub's `library/` dropped too, as `docker pull` has it). */
export function shortImage(c: Container): string {
  const hub = !c.image.registry.url || c.image.registry.url === 'docker.io';
  return hub ? c.image.name.replace(/^library\//, '') : c.image.name;
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
