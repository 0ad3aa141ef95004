const UNITS = ['B', 'kB', 'MB', 'GB', 'TB'];

/** A size in decimal units as Docker prints them ("12.3 MB"), so the UI and `docker images` agree. */
export function bytes(value: number): string {
  let size = value;
  let unit = 0;
  while (size >= 1000 && unit < UNITS.length - 1) {
    size /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? size : size.toFixed(size < 10 ? 2 : 1)} ${UNITS[unit]}`;
}
