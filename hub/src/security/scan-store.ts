import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import { readValidated } from '../store/validated-storage';
import { type ContainerScan, ContainerScanSchema } from './container-scan';

const PREFIX = 'security:scan';
const keyOf = (containerId: string) => `${PREFIX}:${containerId}`;
/** The latest scan of the running image, kept beside the latest scan: the baseline of a delta. */
const RUNNING_PREFIX = 'security:running';
const runningKeyOf = (containerId: string) => `${RUNNING_PREFIX}:${containerId}`;

/**
 * The latest scan of each container, persisted (a restart keeps them) and held in memory, so the
 * container list, the summary and the gate read them synchronously.
 */
export class ScanStore {
  private readonly scans = new Map<string, ContainerScan>();
  private readonly running = new Map<string, ContainerScan>();

  constructor(
    private readonly storage: Storage,
    private readonly logger: Logger,
  ) {}

  async load(): Promise<void> {
    for (const [prefix, into] of [
      [PREFIX, this.scans],
      [RUNNING_PREFIX, this.running],
    ] as const) {
      into.clear();
      for (const key of await this.storage.getKeys(prefix)) {
        const scan = await readValidated(this.storage, key, ContainerScanSchema, this.logger);
        if (scan) into.set(scan.containerId, scan);
      }
    }
  }

  /** The latest successful scan of the container's running image. */
  runningScan(containerId: string): ContainerScan | undefined {
    return this.running.get(containerId);
  }

  get(containerId: string): ContainerScan | undefined {
    return this.scans.get(containerId);
  }

  all(): ContainerScan[] {
    return [...this.scans.values()];
  }

  /** Keeps a successful scan of the running image as the baseline of the next delta. */
  async putRunning(scan: ContainerScan): Promise<void> {
    await this.storage.setItem(runningKeyOf(scan.containerId), scan);
    this.running.set(scan.containerId, scan);
  }

  async put(scan: ContainerScan): Promise<void> {
    if (scan.status === 'scanned' && scan.target === 'current') await this.putRunning(scan);
    await this.storage.setItem(keyOf(scan.containerId), scan);
    this.scans.set(scan.containerId, scan);
  }
}
