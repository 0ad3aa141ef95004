import type { UpdateOperation } from '../../../shared/update-engine';
import type { AuditStore } from '../store/audit-store';

/** The compose-file audit entry: only the audit trail it is written to. */
export interface ComposeAuditDeps {
  audit: Pick<AuditStore, 'append'>;
}

/**
 * Audit `compose-file-updated` when a settled operation rewrote its container's compose file
 * (details: the file's path). A file left alone shows on the operation only (`composeFile`).
 */
export async function auditComposeFile(deps: ComposeAuditDeps, operation: UpdateOperation): Promise<void> {
  if (operation.status !== 'succeeded' || operation.composeFile?.status !== 'rewritten') return;
  await deps.audit.append({
    action: 'compose-file-updated',
    containerName: operation.containerName,
    containerImage: operation.targetImage,
    ...(operation.triggerName !== undefined && { triggerName: operation.triggerName }),
    status: 'success',
    details:
      `${operation.composeFile.path} (backup ${operation.composeFile.backupPath ?? 'none'}; operation ${operation.id})`.slice(
        0,
        500,
      ),
  });
}
