import * as v from 'valibot';
import { UpdateOperationSchema } from '../update-engine';

// What the update routes answer (http-interface §2.6, §2.7, §4.8), for the hub's routes and the web UI's types.

/** An update operation as GET /update-operations/{id} shows it: the journal's internals left out, the queue added. */
export const OperationViewSchema = v.object({
  ...v.omit(UpdateOperationSchema, ['spec', 'tempName', 'oldWasRunning', 'targetImageId', 'targetDigest', 'oldImageId'])
    .entries,
  queuePosition: v.optional(v.number()),
  queueTotal: v.optional(v.number()),
});

/**
 * An image backup as the API shows it (http-interface §2.7): what a container ran before an update,
 * kept so a rollback can go back to it. The stored record (hub/src/updates/backup-store.ts) adds the
 * identity and the configuration.
 */
export const BackupViewSchema = v.object({
  id: v.string(),
  containerId: v.string(),
  containerName: v.string(),
  imageName: v.string(),
  imageTag: v.string(),
  imageDigest: v.exactOptional(v.string()),
  timestamp: v.string(),
  triggerName: v.string(),
  /** The reference the container was created from (`Config.Image`). */
  imageReference: v.string(),
  imageId: v.string(),
  operationId: v.string(),
});

const BlockerSchema = v.object({
  reason: v.string(),
  message: v.string(),
  applies: v.picklist(['manual', 'auto']),
  status: v.optional(v.number()),
  details: v.optional(v.record(v.string(), v.unknown())),
});
const ImageRefSchema = v.object({ image: v.string(), tag: v.string(), digest: v.nullable(v.string()) });

/** POST /containers/{id}/preview (http-interface §4.8): what an update would change, and what blocks it. */
export const UpdatePreviewSchema = v.object({
  containerId: v.string(),
  containerName: v.string(),
  watcher: v.string(),
  agent: v.optional(v.string()),
  current: v.object({ ...ImageRefSchema.entries, imageId: v.string() }),
  target: v.nullable(ImageRefSchema),
  updateKind: v.record(v.string(), v.unknown()),
  triggerName: v.nullable(v.string()),
  phases: v.array(v.string()),
  backup: v.nullable(
    v.object({
      made: v.boolean(),
      imageReference: v.string(),
      imageId: v.string(),
      keep: v.number(),
      wouldDrop: v.array(v.string()),
    }),
  ),
  pruneOldImage: v.boolean(),
  blockers: v.array(BlockerSchema),
  canUpdate: v.boolean(),
  /** The target's release notes, as GET …/release-notes answers them (docs/release-notes.md); absent without a target. */
  releaseNotes: v.optional(
    v.object({
      status: v.string(),
      message: v.string(),
      release: v.nullable(v.record(v.string(), v.unknown())),
    }),
  ),
});
export type UpdatePreview = v.InferOutput<typeof UpdatePreviewSchema>;
