import * as v from 'valibot';
import type { RouteGroup } from '../http/route-group';
import type { ReleaseNotesAnswer } from '../release-notes/release-notes-service';
import type { AuditStore } from '../store/audit-store';
import type { UpdateService } from '../updates/update-service';

const BlockerSchema = v.object({
  reason: v.string(),
  message: v.string(),
  applies: v.picklist(['manual', 'auto']),
  status: v.optional(v.number()),
  details: v.optional(v.record(v.string(), v.unknown())),
});
const ImageRefSchema = v.object({ image: v.string(), tag: v.string(), digest: v.nullable(v.string()) });

const PreviewSchema = v.object({
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

/** The update preview route: the update service's dry run, and the audit trail it is recorded in. */
export interface UpdatePreviewRoutesDeps {
  updates: Pick<UpdateService, 'preview'>;
  audit: Pick<AuditStore, 'append'>;
  /** The release notes of a container's update target (GET …/release-notes); absent: the preview carries none. */
  releaseNotes?: ((containerId: string) => Promise<ReleaseNotesAnswer | undefined>) | undefined;
}

/** The notes of the preview's target; a forge's trouble is a status in them, never a failed preview. */
async function notesOf(
  releaseNotes: (containerId: string) => Promise<ReleaseNotesAnswer | undefined>,
  containerId: string,
): Promise<Pick<ReleaseNotesAnswer, 'status' | 'message' | 'release'> | undefined> {
  try {
    const answer = await releaseNotes(containerId);
    return answer && { status: answer.status, message: answer.message, release: answer.release };
  } catch (error) {
    return { status: 'upstream-error', message: error instanceof Error ? error.message : 'failed', release: null };
  }
}

/** http-interface §4.8 preview: what an update of the container would change, reading only; audited as `preview`. */
export function registerUpdatePreviewRoutes(api: RouteGroup, deps: UpdatePreviewRoutesDeps): void {
  api.add(
    {
      method: 'post',
      path: '/containers/:id/preview',
      access: 'containers:update',
      tag: 'containers',
      summary:
        'Dry run of an update: current and target image, the phases it would run, the backup it would make and every blocker; changes nothing',
      response: PreviewSchema,
      statuses: { 404: 'Unknown container' },
    },
    async (c) => {
      const preview = deps.updates.preview(c.req.param('id') ?? '');
      await deps.audit.append({
        action: 'preview',
        containerName: preview.containerName,
        containerImage: preview.target?.image ?? preview.current.image,
        fromVersion: preview.current.tag || preview.current.imageId,
        ...(preview.target && { toVersion: preview.target.tag }),
        ...(preview.triggerName !== null && { triggerName: preview.triggerName }),
        status: preview.canUpdate ? 'allowed' : 'blocked',
        ...(preview.blockers.length > 0 && { details: preview.blockers.map((blocker) => blocker.reason).join(', ') }),
      });
      const notes = preview.target && deps.releaseNotes && (await notesOf(deps.releaseNotes, preview.containerId));
      return c.json(notes ? { ...preview, releaseNotes: notes } : preview);
    },
  );
}
