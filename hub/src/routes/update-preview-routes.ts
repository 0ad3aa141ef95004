import { UpdatePreviewSchema } from '../../../shared/schemas/update-views';
import type { RouteGroup } from '../http/route-group';
import type { ReleaseNotesAnswer } from '../release-notes/release-notes-service';
import type { AuditStore } from '../store/audit-store';
import type { UpdateService } from '../updates/update-service';

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
      response: UpdatePreviewSchema,
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
