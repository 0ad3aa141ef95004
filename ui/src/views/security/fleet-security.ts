import { SEVERITIES } from '../../../../shared/security/severities';
import type { DatabaseState, ImageFindings, SeverityCounts } from './security-api';

const NONE: SeverityCounts = { critical: 0, high: 0, medium: 0, low: 0, unknown: 0 };

/** The fleet's findings by severity, each image's counted once (one image, one set of packages). */
export function fleetCounts(images: readonly ImageFindings[]): SeverityCounts {
  const total = { ...NONE };
  for (const image of images) for (const severity of SEVERITIES) total[severity] += image.summary[severity];
  return total;
}

/** Worst first: by critical, then high, medium, low, unknown counts; the image name breaks ties. */
export function bySeverity(images: readonly ImageFindings[]): ImageFindings[] {
  return [...images].sort((a, b) => {
    for (const severity of SEVERITIES) {
      const difference = b.summary[severity] - a.summary[severity];
      if (difference !== 0) return difference;
    }
    return a.image.localeCompare(b.image);
  });
}

/** What an update would change of an image's counts, in words: "fixes 1 critical; brings 1 high". */
export function updateWords(image: ImageFindings): string | undefined {
  if (!image.update) return undefined;
  const fixes: string[] = [];
  const brings: string[] = [];
  for (const severity of SEVERITIES) {
    const difference = image.update.summary[severity] - image.summary[severity];
    if (difference < 0) fixes.push(`${-difference} ${severity}`);
    if (difference > 0) brings.push(`${difference} ${severity}`);
  }
  if (image.scannedAt === null) return `the update's image: ${countsWords(image.update.summary)}`;
  const parts = [fixes.length > 0 && `fixes ${fixes.join(', ')}`, brings.length > 0 && `brings ${brings.join(', ')}`];
  const said = parts.filter(Boolean).join('; ');
  return said === '' ? 'changes no count' : said;
}

export function countsWords(summary: SeverityCounts): string {
  const shown = SEVERITIES.filter((severity) => summary[severity] > 0).map((s) => `${summary[s]} ${s}`);
  return shown.length === 0 ? 'no known vulnerability' : shown.join(', ');
}

/** The database or tool in a sentence. */
export function databaseWords(database: DatabaseState): string {
  switch (database.state) {
    case 'ready':
      return `OSV database from ${database.source}, imported ${new Date(database.importedAt).toLocaleString()}${
        database.lastRefresh
          ? ` (the last refresh ${database.lastRefresh.state}${database.lastRefresh.reason ? `: ${database.lastRefresh.reason}` : ''})`
          : ''
      }`;
    case 'external':
      return `${database.scanner} ${database.version}${database.offline ? ', offline' : ''}`;
    case 'importing':
      return 'The OSV database is being imported.';
    default:
      return database.reason ?? `The database is ${database.state}.`;
  }
}
