import * as v from 'valibot';
import { EffectiveLabelSchema } from '../containers/label-overrides';
import { CONTAINER_STATES } from '../docker/docker-host';
import { WATCHER_TYPES } from '../sources/watcher-type-names';
import { UpdateKindSchema } from '../update/update-kind';
import { UpdatePolicySchema } from './update-policy';

export const MATURITY_LEVELS = ['hot', 'mature', 'established'] as const;

const ImageSchema = v.object({
  id: v.string(),
  /** Registry host as written in the reference (`docker.io`, `ghcr.io`, `127.0.0.1:5000`), and where lookups go when overridden. */
  registry: v.object({ url: v.string(), lookupImage: v.optional(v.string()) }),
  /** Repository: `library/nginx`. */
  name: v.string(),
  tag: v.object({ value: v.string(), semver: v.boolean() }),
  digest: v.object({ watch: v.boolean(), repo: v.optional(v.string()), value: v.optional(v.string()) }),
  architecture: v.string(),
  os: v.string(),
  variant: v.optional(v.string()),
  created: v.optional(v.string()),
});

const ResultSchema = v.object({
  tag: v.string(),
  digest: v.optional(v.string()),
  publishedAt: v.optional(v.string()),
  publishedAtTrusted: v.optional(v.boolean()),
  link: v.optional(v.string()),
});

const CheckErrorSchema = v.object({ phase: v.string(), kind: v.string(), message: v.string(), at: v.string() });

/** A container record (http-interface §2.4, §2.5) as stored and, with env redacted, as served. */
export const ContainerSchema = v.object({
  id: v.string(),
  name: v.string(),
  watcher: v.string(),
  /** The type of its watcher (docs/sources.md); absent for `docker`. */
  watcherType: v.optional(v.picklist(WATCHER_TYPES)),
  agent: v.optional(v.string()),
  status: v.picklist(CONTAINER_STATES),
  health: v.optional(v.picklist(['starting', 'healthy', 'unhealthy'])),
  displayName: v.string(),
  displayIcon: v.optional(v.string()),
  group: v.optional(v.string()),
  watched: v.boolean(),
  includeTags: v.optional(v.string()),
  excludeTags: v.optional(v.string()),
  transformTags: v.optional(v.string()),
  linkTemplate: v.optional(v.string()),
  webhookEnabled: v.boolean(),
  /** The container's own labels, as Docker has them (overrides never show here). */
  labels: v.record(v.string(), v.string()),
  /**
   * Each `dd.*` key the hub acts on that has a value: the effective value and where it comes from
   * (docs/label-overrides.md). Absent from records stored before label overrides.
   */
  effectiveLabels: v.optional(v.record(v.string(), EffectiveLabelSchema)),
  env: v.array(v.object({ key: v.string(), value: v.string() })),
  image: ImageSchema,
  result: v.optional(ResultSchema),
  updateAvailable: v.boolean(),
  updateKind: UpdateKindSchema,
  updateMaturityLevel: v.optional(v.picklist(MATURITY_LEVELS)),
  updatePolicy: UpdatePolicySchema,
  blockers: v.optional(v.array(v.object({ reason: v.string(), liftableAt: v.optional(v.string()) }))),
  /** The latest registry check that failed; cleared by a successful one. Last-known fields are kept meanwhile. */
  error: v.optional(CheckErrorSchema),
  /** ISO 8601: when Docker created it, when the hub first saw it, when it was last checked against its registry. */
  createdAt: v.string(),
  firstSeenAt: v.string(),
  checkedAt: v.optional(v.string()),
  /**
   * As served only (never stored): the latest vulnerability scan's state and counts
   * (docs/security-scanning.md), its findings with `includeVulnerabilities`.
   */
  security: v.optional(
    v.looseObject({
      status: v.picklist(['not-scanned', 'scanned', 'failed']),
      summary: v.object({
        critical: v.number(),
        high: v.number(),
        medium: v.number(),
        low: v.number(),
        unknown: v.number(),
      }),
    }),
  ),
});
export type Container = v.InferOutput<typeof ContainerSchema>;
