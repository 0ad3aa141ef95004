import * as v from 'valibot';
import { CONTAINER_STATES } from '../docker/docker-host';

/**
 * Valibot forms of the plain-data Docker views (shared/docker/docker-host.ts), so what crosses the
 * edge protocol is checked on arrival exactly like any other frame. Optional fields are
 * exactOptional: their output then has the views' own types (`health?: ...`, not `| undefined`),
 * which exactOptionalPropertyTypes requires for passing a parsed frame on as a Docker view.
 */
const Labels = v.record(v.string(), v.string());

export const ContainerSummarySchema = v.object({
  id: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  name: v.pipe(v.string(), v.maxLength(256)),
  image: v.pipe(v.string(), v.maxLength(1024)),
  imageId: v.pipe(v.string(), v.maxLength(256)),
  state: v.picklist(CONTAINER_STATES),
  labels: Labels,
  createdAt: v.number(),
});

export const ContainerDetailsSchema = v.object({
  ...ContainerSummarySchema.entries,
  env: v.array(v.string()),
  health: v.exactOptional(v.picklist(['starting', 'healthy', 'unhealthy'])),
  startedAt: v.exactOptional(v.string()),
  restartCount: v.number(),
});

export const ImageDetailsSchema = v.object({
  id: v.pipe(v.string(), v.maxLength(256)),
  repoTags: v.array(v.string()),
  repoDigests: v.array(v.string()),
  os: v.string(),
  architecture: v.string(),
  variant: v.exactOptional(v.string()),
  created: v.exactOptional(v.string()),
});

export const LogLineSchema = v.object({
  stream: v.picklist(['stdout', 'stderr']),
  ts: v.string(),
  line: v.string(),
});

export const StatsSchema = v.object({
  cpuPercent: v.number(),
  memoryBytes: v.number(),
  memoryLimitBytes: v.number(),
});

export const LogOptionsSchema = v.object({
  stdout: v.boolean(),
  stderr: v.boolean(),
  tail: v.exactOptional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  since: v.exactOptional(v.number()),
  timestamps: v.boolean(),
  follow: v.boolean(),
});
