import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import { readValidated } from '../store/validated-storage';
import { currentReference } from '../updates/update-target';
import { type ContainerScan, ContainerScanSchema } from './container-scan';

const PREFIX = 'security:scan';
const keyOf = (containerId: string) => `${PREFIX}:${containerId}`;
/** The latest scan of the running image, kept beside the latest scan: the baseline of a delta. */
const RUNNING_PREFIX = 'security:running';
const runningKeyOf = (containerId: string) => `${RUNNING_PREFIX}:${containerId}`;

/** What a scan is looked up by when the container has none of its own: the image it runs. */
export type ScannedContainer = Pick<Container, 'id' | 'image'>;

/**
 * The latest scan of each container, persisted (a restart keeps them) and held in memory, so the
 * container list, the summary and the gate read them synchronously.
 *
 * An update or a rollback re-creates a container under a new id; the image it then runs was
 * usually scanned already (the candidate before the update, the running image before the
 * rollback). A container without a scan of its own therefore shows the newest successful scan of
 * the same image (reference and, when both are known, image id) as its running image's scan:
 * the same image keeps its result (issue 28).
 */
export class ScanStore {
  private readonly scans = new Map<string, ContainerScan>();
  private readonly running = new Map<string, ContainerScan>();
  /** The newest successful scan of each image reference, whichever container it was made for. */
  private readonly byImage = new Map<string, ContainerScan>();
  /** Inherited scans as served, kept while their source is the same object (served JSON caches compare identity). */
  private readonly inherited = new Map<string, { source: ContainerScan; scan: ContainerScan }>();

  constructor(
    private readonly storage: Storage,
    private readonly logger: Logger,
  ) {}

  async load(): Promise<void> {
    this.byImage.clear();
    this.inherited.clear();
    for (const [prefix, into] of [
      [PREFIX, this.scans],
      [RUNNING_PREFIX, this.running],
    ] as const) {
      into.clear();
      for (const key of await this.storage.getKeys(prefix)) {
        const scan = await readValidated(this.storage, key, ContainerScanSchema, this.logger);
        if (!scan) continue;
        into.set(scan.containerId, scan);
        this.remember(scan);
      }
    }
  }

  /** The latest successful scan of the container's running image (its own, else its image's). */
  runningScan(containerId: string, container?: ScannedContainer): ContainerScan | undefined {
    return this.running.get(containerId) ?? (container && this.inheritedScan(container));
  }

  /** The container's latest scan; with the record given, its image's when it has none of its own. */
  get(containerId: string, container?: ScannedContainer): ContainerScan | undefined {
    return this.scans.get(containerId) ?? (container && this.inheritedScan(container));
  }

  all(): ContainerScan[] {
    return [...this.scans.values()];
  }

  /** Keeps a successful scan of the running image as the baseline of the next delta. */
  async putRunning(scan: ContainerScan): Promise<void> {
    await this.storage.setItem(runningKeyOf(scan.containerId), scan);
    this.running.set(scan.containerId, scan);
    this.remember(scan);
  }

  async put(scan: ContainerScan): Promise<void> {
    if (scan.status === 'scanned' && scan.target === 'current') await this.putRunning(scan);
    await this.storage.setItem(keyOf(scan.containerId), scan);
    this.scans.set(scan.containerId, scan);
    this.remember(scan);
  }

  private remember(scan: ContainerScan): void {
    if (scan.status !== 'scanned') return;
    const known = this.byImage.get(scan.image);
    if (!known || known.scannedAt <= scan.scannedAt) this.byImage.set(scan.image, scan);
  }

  private inheritedScan(container: ScannedContainer): ContainerScan | undefined {
    const source = this.byImage.get(currentReference(container));
    if (!source) return undefined;
    // A tag pushed again is another image: only the same image id (when both are known) inherits.
    const imageId = container.image.id;
    if (source.imageId !== undefined && imageId !== '' && source.imageId !== imageId) return undefined;
    const kept = this.inherited.get(container.id);
    if (kept?.source === source) return kept.scan;
    // As a scan of this container's running image: what an update would change is not known yet.
    const { delta: _delta, ...rest } = source;
    const scan: ContainerScan = { ...rest, containerId: container.id, target: 'current' };
    this.inherited.set(container.id, { source, scan });
    return scan;
  }
}
