import * as v from 'valibot';

// What the image routes answer (http-interface §4.14), for the hub's routes and the web UI's types.

/** One image of one host, and what keeps it from a prune. */
export const ImageViewSchema = v.object({
  id: v.string(),
  watcher: v.string(),
  /** The edge agent whose host holds it; absent for the hub's own hosts. */
  agent: v.optional(v.string()),
  repoTags: v.array(v.string()),
  repoDigests: v.array(v.string()),
  createdAt: v.string(),
  sizeBytes: v.number(),
  containers: v.array(v.string()),
  keptBy: v.array(v.picklist(['container', 'backup', 'update-operation'])),
  prunable: v.boolean(),
});
export const HostFailureSchema = v.object({ watcher: v.string(), agent: v.optional(v.string()), error: v.string() });

/** GET /images: every host's images, and the hosts that did not answer. */
export const ImageListSchema = v.object({
  data: v.array(ImageViewSchema),
  total: v.number(),
  errors: v.array(HostFailureSchema),
});
/** The prune preview: what a prune would remove. */
export const PrunePreviewSchema = v.object({
  data: v.array(ImageViewSchema),
  total: v.number(),
  reclaimableBytes: v.number(),
  errors: v.array(HostFailureSchema),
});
/** What a prune removed, and what it could not. */
export const PruneResultSchema = v.object({
  removed: v.array(ImageViewSchema),
  skipped: v.array(v.object({ id: v.string(), watcher: v.string(), agent: v.optional(v.string()), error: v.string() })),
  reclaimedBytes: v.number(),
  errors: v.array(HostFailureSchema),
});
