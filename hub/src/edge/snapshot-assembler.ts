import type { DockerContainerDetails, DockerImageDetails } from '../../../shared/docker/docker-host';
import type { AgentFrame } from '../../../shared/edge/protocol';

type SnapshotFrame = Extract<AgentFrame, { type: 'snapshot' }>;

export interface AssembledSnapshot {
  watcher: string;
  syncId: string;
  operationId: string | undefined;
  containers: DockerContainerDetails[];
  images: DockerImageDetails[];
}

export type SnapshotStep = { done: AssembledSnapshot } | { pending: true } | { error: string };

/** One sync may hold at most this many containers: far above any host, and a bound on what a peer can make the hub hold. */
export const MAX_SNAPSHOT_CONTAINERS = 20_000;

interface InProgress {
  syncId: string;
  operationId: string | undefined;
  nextPart: number;
  containers: DockerContainerDetails[];
  images: Map<string, DockerImageDetails>;
}

/**
 * Puts a watcher's snapshot parts together (docs/edge-protocol.md "inventory"): part 0 begins a
 * sync (dropping one still in progress for that watcher: the agent started over), the others
 * follow in order under the same syncId, and the part with `last` completes it. Anything else is
 * a protocol error the session closes for.
 */
export class SnapshotAssembler {
  private readonly syncs = new Map<string, InProgress>();

  constructor(private readonly maxContainers = MAX_SNAPSHOT_CONTAINERS) {}

  add(frame: SnapshotFrame): SnapshotStep {
    let sync = this.syncs.get(frame.watcher);
    if (frame.part === 0) {
      sync = { syncId: frame.syncId, operationId: frame.operationId, nextPart: 0, containers: [], images: new Map() };
      this.syncs.set(frame.watcher, sync);
    }
    if (!sync || sync.syncId !== frame.syncId || sync.nextPart !== frame.part) {
      this.syncs.delete(frame.watcher);
      return { error: `snapshot part ${frame.part} of ${frame.watcher} out of order` };
    }
    if (sync.containers.length + frame.containers.length > this.maxContainers) {
      this.syncs.delete(frame.watcher);
      return { error: `snapshot of ${frame.watcher} exceeds ${this.maxContainers} containers` };
    }
    sync.nextPart += 1;
    for (const container of frame.containers) sync.containers.push(container);
    for (const image of frame.images) sync.images.set(image.id, image);
    if (!frame.last) return { pending: true };
    this.syncs.delete(frame.watcher);
    return {
      done: {
        watcher: frame.watcher,
        syncId: sync.syncId,
        operationId: sync.operationId,
        containers: sync.containers,
        images: [...sync.images.values()],
      },
    };
  }

  clear(): void {
    this.syncs.clear();
  }
}
