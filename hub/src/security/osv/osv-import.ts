import { OsvIndexBuilder } from './osv-index';
import { readOsvExport } from './osv-source';
import type { OsvMeta, OsvStore } from './osv-store';

/**
 * One import: every entry of the export read, validated and indexed, then the index saved as a new
 * generation with the source and date. Bad parts of the export (not JSON, hostile entries) are
 * counted in the result's `counts.skipped`; an export with nothing usable in it still replaces the
 * database, since it is what the operator pointed at (its counts say so).
 */
export async function importOsvExport(
  store: OsvStore,
  bytes: Uint8Array,
  source: string,
  now: number,
): Promise<OsvMeta> {
  const builder = new OsvIndexBuilder(now);
  readOsvExport(bytes, { entry: (value) => builder.add(value), bad: (reason) => builder.skip(reason) });
  return store.save(builder.index, source, builder.counts, now);
}
