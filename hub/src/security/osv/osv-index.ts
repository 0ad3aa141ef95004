import * as v from 'valibot';
import { type IndexedAdvisory, rangeProblem, toIndexedAdvisory } from './advisory';
import { indexEcosystemOf, normalisePackageName } from './ecosystems';
import { OsvRecordSchema } from './osv-record';

/** The key of one (ecosystem, package) in the index. */
export function indexKey(ecosystem: string, name: string): string {
  return `${ecosystem}\u0000${normalisePackageName(ecosystem.split(':')[0] ?? '', name)}`;
}

/** What an import read: entries indexed, and those skipped with why (the first few kept for the status). */
export interface OsvImportCounts {
  /** Advisories with at least one indexed (ecosystem, package). */
  imported: number;
  /** Withdrawn advisories, left out (OSV: "no longer valid"). */
  withdrawn: number;
  /** Entries that failed validation or held a bad range: skipped, never half-read. */
  skipped: number;
  /** Index entries: one per (advisory, ecosystem, package), the streams of a RHEL release counting as one ecosystem when their entries are the same. */
  indexed: number;
  /** Up to 20 of the skip reasons, for the import status and the audit entry. */
  problems: string[];
}

const MAX_PROBLEMS = 20;

/**
 * Builds the (ecosystem, package name) → advisories index from raw OSV entries, one at a time so
 * an export of any size streams through: each entry is validated (osv-record.ts), hostile ones
 * counted and skipped.
 */
export class OsvIndexBuilder {
  readonly index = new Map<string, IndexedAdvisory[]>();
  readonly counts: OsvImportCounts = { imported: 0, withdrawn: 0, skipped: 0, indexed: 0, problems: [] };

  constructor(private readonly now: number) {}

  skip(reason: string): void {
    this.counts.skipped++;
    if (this.counts.problems.length < MAX_PROBLEMS) this.counts.problems.push(reason.slice(0, 300));
  }

  add(raw: unknown): void {
    const parsed = v.safeParse(OsvRecordSchema, raw);
    if (!parsed.success) {
      const id = typeof raw === 'object' && raw !== null && 'id' in raw ? String(raw.id).slice(0, 128) : '(no id)';
      const issue = parsed.issues[0];
      this.skip(`${id}: ${v.getDotPath(issue) ?? 'entry'}: ${issue.message}`);
      return;
    }
    const record = parsed.output;
    const withdrawn = record.withdrawn === undefined ? Number.NaN : Date.parse(record.withdrawn);
    if (record.withdrawn !== undefined && !(withdrawn > this.now)) {
      this.counts.withdrawn++;
      return;
    }
    const affectedList = (record.affected ?? []).filter((affected) => affected.package);
    for (const affected of affectedList) {
      const problem = rangeProblem(affected.package?.ecosystem ?? '', affected);
      if (problem) {
        this.skip(`${record.id}: ${problem}`);
        return;
      }
    }
    // RHSA lists a package once per stream (appstream, baseos), mostly with the same fix, and the
    // streams of a release share a key (ecosystems.ts): what one record puts under it is stored once.
    const grouped = new Map<string, Set<string>>();
    for (const affected of affectedList) {
      const published = affected.package?.ecosystem ?? '';
      const keyed = indexEcosystemOf(published);
      const key = indexKey(keyed, affected.package?.name ?? '');
      let advisory = toIndexedAdvisory(record, affected);
      if (keyed !== published) {
        const signature = JSON.stringify([advisory.ranges, advisory.versions, advisory.severity, advisory.score]);
        const signatures = grouped.get(key) ?? new Set<string>();
        if (signatures.has(signature)) continue;
        grouped.set(key, signatures.add(signature));
        advisory = { ...advisory, ecosystem: published };
      }
      const list = this.index.get(key) ?? [];
      list.push(advisory);
      this.index.set(key, list);
      this.counts.indexed++;
    }
    if (affectedList.length > 0) this.counts.imported++;
  }
}
