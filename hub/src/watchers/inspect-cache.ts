import type {
  DockerContainerDetails,
  DockerContainerSummary,
  DockerImageDetails,
} from '../../../shared/docker/docker-host';
import type { Container } from '../../../shared/schemas/container';
import type { UpdatePolicy } from '../../../shared/schemas/update-policy';

/** What one record was built from, and the record the observation handed on. */
export interface BuildInputs {
  details: DockerContainerDetails;
  image: DockerImageDetails | undefined;
  overrides: unknown;
  labelPolicy: UpdatePolicy;
}

/**
 * What the Engine said of each container, kept only while the watcher's event stream is open: every
 * change to a container (start, die, health status, rename, update...) arrives as an event, which
 * drops its entry, so a warm cycle inspects only the containers that changed since (issue 18) and
 * builds the others from what it already knows. The stream replays events from the moment of
 * subscribing (DockerHost.subscribeEvents), so an entry inspected after `open()` cannot miss one.
 */
export class InspectCache {
  private readonly entries = new Map<string, DockerContainerDetails>();
  /** The record last built from each entry: while nothing it was built from changed, it is reused as is. */
  private readonly builds = new Map<string, BuildInputs & { record: Container }>();
  /** Events seen per id while an inspect was in flight: an answer older than an event is not kept. */
  private readonly eventCounts = new Map<string, number>();
  private live = false;
  private epoch = 0;

  /** Whether the event stream is open: what the cache holds is current. */
  get isLive(): boolean {
    return this.live;
  }

  /** The event stream was (re)opened: entries inspected from now on stay current. */
  open(): void {
    this.entries.clear();
    this.builds.clear();
    this.eventCounts.clear();
    this.live = true;
    this.epoch += 1;
  }

  /** The stream closed: events may be lost until it reopens, so nothing cached can be trusted. */
  close(): void {
    this.entries.clear();
    this.builds.clear();
    this.eventCounts.clear();
    this.live = false;
    this.epoch += 1;
  }

  /** An event about the container: its next observation asks the Engine. */
  changed(id: string): void {
    this.entries.delete(id);
    this.builds.delete(id);
    this.eventCounts.set(id, (this.eventCounts.get(id) ?? 0) + 1);
  }

  /** The cached details, when the listing agrees with them on everything it shows. */
  lookup(summary: DockerContainerSummary | undefined): DockerContainerDetails | undefined {
    if (!summary || !this.live) return undefined;
    const cached = this.entries.get(summary.id);
    // A cycle made from the kept inventory looks up the kept details themselves.
    return cached && (cached === summary || sameSummary(cached, summary)) ? cached : undefined;
  }

  /** Call before inspecting; hand the token to `keep` with the answer. */
  begin(id: string): { id: string; epoch: number; events: number } {
    return { id, epoch: this.epoch, events: this.eventCounts.get(id) ?? 0 };
  }

  keep(token: { id: string; epoch: number; events: number }, details: DockerContainerDetails): void {
    if (!this.live || token.epoch !== this.epoch) return;
    if ((this.eventCounts.get(token.id) ?? 0) !== token.events) return;
    this.entries.set(token.id, details);
  }

  forget(id: string): void {
    this.entries.delete(id);
    this.builds.delete(id);
  }

  /**
   * Every record's details, when the cache holds them all with the very record built from them
   * (no event about any since, nor a write by anyone else): the inventory as the event stream
   * kept it. Undefined when one is missing, or the stream is not open.
   */
  knownInventory(records: ReadonlyMap<string, Container>): Map<string, DockerContainerDetails> | undefined {
    if (!this.live || records.size === 0) return undefined;
    const known = new Map<string, DockerContainerDetails>();
    for (const [id, record] of records) {
      const details = this.entries.get(id);
      if (!details || this.builds.get(id)?.record !== record) return undefined;
      known.set(id, details);
    }
    return known;
  }

  /** The record built from these very details, if it is still the stored one (`stored`). */
  lastBuild(id: string, details: DockerContainerDetails, stored: Container | undefined) {
    const build = this.builds.get(id);
    return build && build.details === details && build.record === stored ? build : undefined;
  }

  /** Only for details this cache holds (inspected while the stream was open, with no event since). */
  rememberBuild(id: string, build: BuildInputs & { record: Container }): void {
    if (this.entries.get(id) === build.details) this.builds.set(id, build);
  }
}

function sameSummary(details: DockerContainerSummary, summary: DockerContainerSummary): boolean {
  if (
    details.name !== summary.name ||
    details.image !== summary.image ||
    details.imageId !== summary.imageId ||
    details.state !== summary.state ||
    // The listing gives seconds, inspect gives the full date.
    Math.floor(details.createdAt / 1000) !== Math.floor(summary.createdAt / 1000)
  )
    return false;
  const keys = Object.keys(summary.labels);
  if (keys.length !== Object.keys(details.labels).length) return false;
  return keys.every((key) => details.labels[key] === summary.labels[key]);
}
