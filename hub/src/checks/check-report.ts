import type { Container } from '../../../shared/schemas/container';
import { DAY_MS } from '../../../shared/update/timestamp';
import type { OneShotResult } from '../compose-check';
import { toPublicContainer } from '../watchers/public-container';

/**
 * Exit codes of `dockwatch check` (docs/sources.md "Exit codes"), for scripts and CI. Errors win
 * over updates: a check that could not look everywhere cannot say "nothing newer".
 */
export const CHECK_EXIT = { upToDate: 0, updatesAvailable: 1, errors: 2, usage: 64, configuration: 78 } as const;

/** `--json` (docs/sources.md "JSON output"): the version of this shape; a breaking change bumps it. */
export const CHECK_JSON_VERSION = 1;

export interface CheckRow {
  name: string;
  image: string;
  current: string;
  candidate: string;
  kind: string;
  age: string;
}

function imageOf(record: Container): string {
  const { registry, name } = record.image;
  const short = registry.url === 'docker.io' ? name.replace(/^library\//, '') : `${registry.url}/${name}`;
  return short;
}

const shortDigest = (digest: string | undefined) => (digest ? digest.replace(/^sha256:/, '').slice(0, 12) : '-');

/** How long ago the candidate was published: `3d`, `5h`, `12m`; `-` when unknown. */
export function ageOf(publishedAt: string | undefined, now: number): string {
  const at = publishedAt === undefined ? Number.NaN : Date.parse(publishedAt);
  if (Number.isNaN(at)) return '-';
  const ms = Math.max(0, now - at);
  if (ms >= DAY_MS) return `${Math.floor(ms / DAY_MS)}d`;
  if (ms >= 3_600_000) return `${Math.floor(ms / 3_600_000)}h`;
  return `${Math.floor(ms / 60_000)}m`;
}

/** One line of the table: what runs (or is named), what is newer, of which kind, published how long ago. */
export function rowOf(record: Container, now: number): CheckRow {
  const kind = record.updateKind;
  const current = record.image.tag.value || shortDigest(record.image.digest.value);
  let candidate = '-';
  let kindText = record.error ? 'error' : '-';
  if (record.updateAvailable && kind.kind === 'tag') {
    candidate = kind.remoteValue;
    kindText = kind.semverDiff ?? 'tag';
  } else if (record.updateAvailable && kind.kind === 'digest') {
    candidate = `${current}@${shortDigest(kind.remoteValue)}`;
    kindText = 'digest';
  } else if (!record.watched) kindText = 'unwatched';
  return {
    name: record.displayName,
    image: imageOf(record),
    current,
    candidate,
    kind: kindText,
    age: record.updateAvailable ? ageOf(record.result?.publishedAt, now) : '-',
  };
}

const COLUMNS: readonly (keyof CheckRow)[] = ['name', 'image', 'current', 'candidate', 'kind', 'age'];

/** The terminal table: updates first, then by name; columns padded to their widest cell. */
export function formatTable(records: readonly Container[], now: number): string {
  const rows = [...records]
    .sort((a, b) => Number(b.updateAvailable) - Number(a.updateAvailable) || a.displayName.localeCompare(b.displayName))
    .map((record) => rowOf(record, now));
  const header = Object.fromEntries(COLUMNS.map((column) => [column, column.toUpperCase()])) as unknown as CheckRow;
  const widths = COLUMNS.map((column) => Math.max(...[header, ...rows].map((row) => row[column].length)));
  return [header, ...rows]
    .map((row) =>
      COLUMNS.map((column, index) => row[column].padEnd(widths[index] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** What went wrong, one line each, for stderr: source errors and file problems with file and line. */
export function problemLines(result: OneShotResult): string[] {
  return result.sources.flatMap((source) => [
    ...source.problems.map(
      (problem) =>
        `${source.type}.${source.name}: ${problem.file}${problem.line === undefined ? '' : `:${problem.line}`}: ${problem.message}`,
    ),
    ...source.errors.map((error) => `${source.type}.${source.name}: ${error.phase}: ${error.message}`),
  ]);
}

/** The counts of the `--json` summary: what the exit code is decided from too. */
function summaryOf(result: OneShotResult) {
  const updates = result.records.filter((record) => record.updateAvailable).length;
  const errors =
    result.sources.reduce((sum, source) => sum + source.errors.length + source.problems.length, 0) +
    result.records.filter((record) => record.error).length;
  return { containers: result.records.length, updates, errors };
}

/** The `--json` document (docs/sources.md "JSON output"): containers exactly as GET /api/v1/containers gives them. */
export function jsonReport(result: OneShotResult, now: number) {
  return {
    version: CHECK_JSON_VERSION,
    checkedAt: new Date(now).toISOString(),
    summary: summaryOf(result),
    sources: result.sources,
    containers: result.records.map(toPublicContainer),
  };
}

/** Decided from the counts alone: no record is copied for it (a thousand were, for the JSON report). */
export function exitCodeOf(result: OneShotResult): number {
  const summary = summaryOf(result);
  if (summary.errors > 0) return CHECK_EXIT.errors;
  return summary.updates > 0 ? CHECK_EXIT.updatesAvailable : CHECK_EXIT.upToDate;
}
