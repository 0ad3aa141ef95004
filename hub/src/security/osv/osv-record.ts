import * as v from 'valibot';

/**
 * The part of the OSV schema (https://ossf.github.io/osv-schema/) the matcher reads, validated
 * with bounds: an advisory file is input from outside, and an entry that is too big or of the
 * wrong shape is skipped and counted by the import, never matched half-read.
 */

const Text = (max: number) => v.pipe(v.string(), v.maxLength(max));
const Version = Text(256);

/** One event: exactly one of its four keys (schema: "Only a single type of event"). */
const EventSchema = v.union([
  v.strictObject({ introduced: Version }),
  v.strictObject({ fixed: Version }),
  v.strictObject({ last_affected: Version }),
  v.strictObject({ limit: Version }),
]);
export type OsvEvent = v.InferOutput<typeof EventSchema>;

const RangeSchema = v.object({
  type: v.picklist(['SEMVER', 'ECOSYSTEM', 'GIT']),
  repo: v.optional(Text(2048)),
  events: v.pipe(v.array(EventSchema), v.minLength(1), v.maxLength(512)),
});
export type OsvRange = v.InferOutput<typeof RangeSchema>;

const DatabaseSpecific = v.optional(v.looseObject({ severity: v.optional(v.unknown()) }));

const AffectedSchema = v.object({
  package: v.optional(v.object({ ecosystem: Text(128), name: Text(512), purl: v.optional(Text(2048)) })),
  ranges: v.optional(v.pipe(v.array(RangeSchema), v.maxLength(256))),
  versions: v.optional(v.pipe(v.array(Version), v.maxLength(20_000))),
  severity: v.optional(v.pipe(v.array(v.object({ type: Text(32), score: Text(256) })), v.maxLength(16))),
  database_specific: DatabaseSpecific,
});
export type OsvAffected = v.InferOutput<typeof AffectedSchema>;

export const OsvRecordSchema = v.object({
  id: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  modified: v.optional(Text(64)),
  withdrawn: v.optional(Text(64)),
  aliases: v.optional(v.pipe(v.array(Text(128)), v.maxLength(256))),
  /** Schema 1.7: the ids this one is derived from; a kernel RHSA fixes several hundred CVEs. */
  upstream: v.optional(v.pipe(v.array(Text(128)), v.maxLength(4096))),
  summary: v.optional(Text(4096)),
  details: v.optional(v.string()),
  severity: v.optional(v.pipe(v.array(v.object({ type: Text(32), score: Text(256) })), v.maxLength(16))),
  affected: v.optional(v.pipe(v.array(AffectedSchema), v.maxLength(4096))),
  references: v.optional(v.pipe(v.array(v.object({ type: v.optional(Text(32)), url: Text(2048) })), v.maxLength(1024))),
  database_specific: DatabaseSpecific,
});
export type OsvRecord = v.InferOutput<typeof OsvRecordSchema>;
