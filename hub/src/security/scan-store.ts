import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import { readValidated } from '../store/validated-storage';
import { type ContainerScan, ContainerScanSchema } from './container-scan';

const PREFIX = 'security:scan';
const keyOf = (containerId: string) => `${PREFIX}:${containerId}`;

/**
 * The latest scan of each container, persisted (a restart keeps them) and held in memory, so the
 * container list, the summary and the gate read them synchronously.
 */
export class ScanStore {
  private readonly scans = new Map<string, ContainerScan>();

  constructor(
    private readonly storage: Storage,
    private readonly logger: Logger,
  ) {}

  async load(): Promise<void> {
    this.scans.clear();
    for (const key of await this.storage.getKeys(PREFIX)) {
      const scan = await readValidated(this.storage, key, ContainerScanSchema, this.logger);
      if (scan) this.scans.set(scan.containerId, scan);
    }
  }

  get(containerId: string): ContainerScan | undefined {
    return this.scans.get(containerId);
  }

  all(): ContainerScan[] {
    return [...this.scans.values()];
  }

  async put(scan: ContainerScan): Promise<void> {
    await this.storage.setItem(keyOf(scan.containerId), scan);
    this.scans.set(scan.containerId, scan);
  }
}
