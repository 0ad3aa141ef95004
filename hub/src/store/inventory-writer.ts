import type { Storage } from 'unstorage';
import type { AuditEntry, AuditRecord } from '../../../shared/schemas/audit-entry';
import type { Container } from '../../../shared/schemas/container';
import type { AuditStore } from './audit-store';
import type { ContainerStore } from './container-store';
import { writeTogether } from './staged-writes';

/**
 * An observation's container records and their audit entries, stored as one batch (one Durable
 * Object transaction: issue 16 item 3), then retention; `audited` is told the entries written.
 */
export function inventoryWriter(
  storage: Storage,
  containers: Pick<ContainerStore, 'stageMany'>,
  audit: Pick<AuditStore, 'stageMany' | 'prune'>,
  audited: (entries: readonly AuditEntry[]) => void = () => undefined,
): (records: readonly Container[], entries: readonly AuditRecord[]) => Promise<void> {
  return async (records, entries) => {
    const staged = audit.stageMany(entries);
    await writeTogether(storage, containers.stageMany(records), staged);
    audited(staged.entries);
    if (staged.entries.length > 0) await audit.prune();
  };
}
