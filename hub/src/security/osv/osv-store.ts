import type { Storage } from 'unstorage';
import * as v from 'valibot';
import type { Logger } from '../../../../shared/logging/logger';
import { readValidated } from '../../store/validated-storage';
import { SEVERITIES } from '../severity';
import type { IndexedAdvisory } from './advisory';
import type { OsvImportCounts } from './osv-index';
import { indexKey } from './osv-index';

/**
 * The imported OSV database in storage: a meta record (import date, source, counts) naming a
 * generation, and the generation's index split in buckets by a hash of (ecosystem, package), each
 * small enough for any driver (a Durable Object value is at most 128 KiB). A lookup reads only the
 * buckets of the packages asked for, once per generation. A new import writes a new generation and
 * then switches the meta record, so a scan never reads half an import.
 */

const META_KEY = 'security:osv:meta';
const bucketKey = (generation: string, bucket: number) => `security:osv:${generation}:${bucket}`;
/** Serialised bytes a bucket aims at. */
const BUCKET_TARGET_BYTES = 64 * 1024;

/**
 * How the index is keyed. 2: the streams of a RHEL release share one key (ecosystems.ts). A
 * database stored in another format is imported again at start (security-service.ts).
 */
export const OSV_INDEX_FORMAT = 2;

const OsvMetaSchema = v.object({
  generation: v.string(),
  /** Absent in databases stored before the format was recorded: format 1. */
  format: v.optional(v.number()),
  importedAt: v.string(),
  source: v.string(),
  bucketCount: v.pipe(v.number(), v.integer(), v.minValue(1)),
  counts: v.object({
    imported: v.number(),
    withdrawn: v.number(),
    skipped: v.number(),
    indexed: v.number(),
    problems: v.array(v.string()),
  }),
});
export type OsvMeta = v.InferOutput<typeof OsvMetaSchema>;

const EventSchema = v.union([
  v.object({ introduced: v.string() }),
  v.object({ fixed: v.string() }),
  v.object({ last_affected: v.string() }),
  v.object({ limit: v.string() }),
]);
/** A bucket as read back: checked like every stored record (decisions §3), a bad one read as empty. */
const BucketSchema = v.record(
  v.string(),
  v.array(
    v.object({
      id: v.string(),
      aliases: v.array(v.string()),
      summary: v.string(),
      url: v.string(),
      severity: v.picklist(SEVERITIES),
      score: v.optional(v.number()),
      ranges: v.array(v.object({ type: v.picklist(['SEMVER', 'ECOSYSTEM']), events: v.array(EventSchema) })),
      versions: v.array(v.string()),
      ecosystem: v.optional(v.string()),
    }),
  ),
);

type Bucket = Record<string, IndexedAdvisory[]>;

/** FNV-1a: the same bucket for a key on every runtime. */
function bucketOf(key: string, bucketCount: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return hash % bucketCount;
}

export class OsvStore {
  private meta: OsvMeta | undefined;
  private loaded = false;
  private readonly buckets = new Map<number, Promise<Bucket>>();

  constructor(
    private readonly storage: Storage,
    private readonly logger: Logger,
  ) {}

  async status(): Promise<OsvMeta | undefined> {
    if (!this.loaded) {
      this.meta = await readValidated(this.storage, META_KEY, OsvMetaSchema, this.logger);
      this.loaded = true;
    }
    return this.meta;
  }

  async save(
    index: Map<string, IndexedAdvisory[]>,
    source: string,
    counts: OsvImportCounts,
    now: number,
  ): Promise<OsvMeta> {
    const previous = await this.status();
    let bytes = 0;
    for (const [key, list] of index) bytes += key.length + JSON.stringify(list).length;
    // A power of two, so a re-import of a similar database keeps similar buckets.
    const bucketCount = 2 ** Math.max(0, Math.ceil(Math.log2(Math.max(1, bytes / BUCKET_TARGET_BYTES))));
    const generation = now.toString(36);
    const buckets = Array.from({ length: bucketCount }, (): Bucket => ({}));
    for (const [key, list] of index) {
      const bucket = buckets[bucketOf(key, bucketCount)];
      if (bucket) bucket[key] = list;
    }
    for (let i = 0; i < bucketCount; i++) await this.storage.setItem(bucketKey(generation, i), buckets[i] ?? {});
    const meta: OsvMeta = {
      generation,
      format: OSV_INDEX_FORMAT,
      importedAt: new Date(now).toISOString(),
      source,
      bucketCount,
      counts,
    };
    await this.storage.setItem(META_KEY, meta);
    this.meta = meta;
    this.loaded = true;
    this.buckets.clear();
    if (previous && previous.generation !== generation)
      for (let i = 0; i < previous.bucketCount; i++) await this.storage.removeItem(bucketKey(previous.generation, i));
    return meta;
  }

  /** The advisories indexed for (ecosystem, name); empty when nothing was imported. */
  async lookup(ecosystem: string, name: string): Promise<IndexedAdvisory[]> {
    const meta = await this.status();
    if (!meta) return [];
    const key = indexKey(ecosystem, name);
    const number = bucketOf(key, meta.bucketCount);
    let bucket = this.buckets.get(number);
    if (!bucket) {
      const key = bucketKey(meta.generation, number);
      // The schema spells optional fields `T | undefined`; the values are what save() wrote.
      bucket = readValidated(this.storage, key, BucketSchema, this.logger).then((value) => (value ?? {}) as Bucket);
      this.buckets.set(number, bucket);
    }
    const list = (await bucket)[key];
    return Array.isArray(list) ? list : [];
  }
}
