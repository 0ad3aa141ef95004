import { BoundedCache, memoizePromise } from '../../../shared/bounded-cache';
import type { ImageConfig, Platform } from '../../../shared/registry/manifest';
import type { ManifestHead, PlatformImage } from '../../../shared/registry/registry-client';
import { type CompiledTagPolicy, findTagCandidate, type TagCandidate } from '../../../shared/tags';
import { DAY_MS } from '../../../shared/update/timestamp';
import type { PublishedAt } from '../registries/registry-provider';
import type { RegistryService } from '../registries/registry-service';

/**
 * Registry facts for the whole fleet. Within one cycle every distinct question (a repository's
 * tags, a tag's digest) is asked once, however many containers on however many hosts share it,
 * and concurrent askers share the request in flight. Digest-addressed facts (platform manifests,
 * configs, publication dates) are kept across cycles; so, for a day, are candidate tags' digests.
 */
export class FleetLookups {
  private readonly platformImages = new BoundedCache<string, PlatformImage>(20_000);
  private readonly configs = new BoundedCache<string, ImageConfig>(20_000);
  private readonly candidateDigests: BoundedCache<string, string>;
  private readonly published = new BoundedCache<string, PublishedAt | null>(20_000);
  private cycle = new Map<string, Promise<unknown>>();
  private cycleStartedAt = Number.NEGATIVE_INFINITY;
  private tagCandidates = new WeakMap<CompiledTagPolicy, Map<string, TagCandidate | undefined>>();
  private imageChecks = new WeakMap<CompiledTagPolicy, Map<string, Promise<unknown>>>();

  /**
   * @param internetless the setting `internetlessMode`: while on, no provider's web API (Docker Hub's,
   * GitHub's) is asked for push dates; the registry itself still is, since checking it is the point.
   */
  constructor(
    private readonly registries: RegistryService,
    private readonly now: () => number = Date.now,
    private readonly internetless: () => boolean = () => false,
  ) {
    this.candidateDigests = new BoundedCache(20_000, now);
  }

  /**
   * Starts a new cycle: per-cycle answers are forgotten, immutable ones kept. With `sharedWithinMs`,
   * a cycle begun that recently is joined instead, so watchers on the same schedule (every host
   * at the top of the hour) ask the registry once between them.
   */
  beginCycle(options: { sharedWithinMs?: number } = {}): void {
    const now = this.now();
    if (options.sharedWithinMs !== undefined && now - this.cycleStartedAt < options.sharedWithinMs) return;
    this.cycleStartedAt = now;
    this.cycle = new Map();
    this.tagCandidates = new WeakMap();
    this.imageChecks = new WeakMap();
  }

  /**
   * One image check per cycle for every container asking the same question (the same reference,
   * platform, local digests, compiled policy object and skips): a thousand containers of ten
   * references are ten checks, not a thousand (issue 18). `key` names everything but the policy.
   */
  imageCheck<T>(policy: CompiledTagPolicy, key: string, check: () => Promise<T>): Promise<T> {
    let byKey = this.imageChecks.get(policy);
    if (!byKey) {
      byKey = new Map();
      this.imageChecks.set(policy, byKey);
    }
    return memoizePromise(byKey as Map<string, Promise<T>>, key, check);
  }

  /**
   * The tag candidate for a current tag in a repository's tag list, computed once per cycle for
   * every container sharing the question: the same tag, the same compiled policy object and the
   * same skips. Keyed by the policy's identity, so callers share compiled policies to share this.
   */
  tagCandidate(
    registry: string,
    repository: string,
    tag: string,
    tags: readonly string[],
    policy: CompiledTagPolicy,
    skipTags: readonly string[] = [],
  ): TagCandidate | undefined {
    let byQuestion = this.tagCandidates.get(policy);
    if (!byQuestion) {
      byQuestion = new Map();
      this.tagCandidates.set(policy, byQuestion);
    }
    const key = `${registry}|${repository}|${tag}|${skipTags.join('\u0000')}`;
    if (byQuestion.has(key)) return byQuestion.get(key);
    const candidate = findTagCandidate(tag, tags, policy, skipTags);
    byQuestion.set(key, candidate);
    return candidate;
  }

  tags(registry: string, repository: string): Promise<string[]> {
    return this.perCycle(`tags|${registry}|${repository}`, async () => {
      const { client } = await this.registries.clientFor(registry);
      return client.listTags(repository);
    });
  }

  tagDigest(registry: string, repository: string, tag: string): Promise<ManifestHead> {
    return this.perCycle(`head|${registry}|${repository}|${tag}`, async () => {
      const { client } = await this.registries.clientFor(registry);
      return client.headManifest(repository, tag);
    });
  }

  async platformImage(
    registry: string,
    repository: string,
    digest: string,
    platform: Platform,
  ): Promise<PlatformImage> {
    const key = `${registry}|${repository}|${digest}|${platform.os}/${platform.architecture}/${platform.variant ?? ''}`;
    const cached = this.platformImages.get(key);
    if (cached) return cached;
    const image = await this.perCycle(`platform|${key}`, async () => {
      const { client } = await this.registries.clientFor(registry);
      return client.resolvePlatform(repository, digest, platform);
    });
    this.platformImages.set(key, image);
    return image;
  }

  async config(registry: string, repository: string, configDigest: string): Promise<ImageConfig> {
    const cached = this.configs.get(configDigest);
    if (cached) return cached;
    const config = await this.perCycle(`config|${registry}|${configDigest}`, async () => {
      const { client } = await this.registries.clientFor(registry);
      return client.getImageConfig(repository, configDigest);
    });
    this.configs.set(configDigest, config);
    return config;
  }

  /**
   * The digest of a candidate tag, kept for a day: a version tag is rarely re-pushed, and asking
   * every cycle would double the requests of every container with a pending tag update.
   */
  async candidateDigest(registry: string, repository: string, tag: string): Promise<string> {
    const key = `${registry}|${repository}|${tag}`;
    const cached = this.candidateDigests.get(key);
    if (cached) return cached;
    const { digest } = await this.tagDigest(registry, repository, tag);
    this.candidateDigests.set(key, digest, DAY_MS);
    return digest;
  }

  /**
   * When a digest was published under a tag: the provider's trusted push date where it has one
   * (Docker Hub, GHCR), else the image's own `created`, untrusted. Keyed by digest, so a re-pushed
   * rolling tag gets its new date and an unchanged one costs nothing. With `internetlessMode` the
   * provider's web API (a fixed public address, not the registry the operator configured) is not
   * asked, and the untrusted date found instead is kept for this cycle only, so turning the mode
   * off brings the trusted date at the next cycle.
   */
  async publishedAt(
    registry: string,
    repository: string,
    tag: string,
    digest: string,
    platform: Platform,
  ): Promise<PublishedAt | undefined> {
    const key = `${registry}|${repository}|${tag}|${digest}`;
    const known = this.published.get(key);
    if (known !== undefined) return known ?? undefined;
    const offline = this.internetless();
    const date = await this.perCycle(`published|${offline ? 'internetless|' : ''}${key}`, async () => {
      const { provider } = await this.registries.clientFor(registry);
      const trusted = offline
        ? undefined
        : await provider.publishedAt?.(repository, tag, digest).catch(() => undefined);
      if (trusted) return trusted;
      const created = await this.createdOf(registry, repository, digest, platform).catch(() => undefined);
      return created ? { date: created, trusted: false } : null;
    });
    if (!offline) this.published.set(key, date);
    return date ?? undefined;
  }

  /** The image's own build date: untrusted, since a builder may set anything (1970 for reproducible builds). */
  async createdOf(
    registry: string,
    repository: string,
    digest: string,
    platform: Platform,
  ): Promise<string | undefined> {
    const image = await this.platformImage(registry, repository, digest, platform);
    return (await this.config(registry, repository, image.configDigest)).created;
  }

  private perCycle<T>(key: string, load: () => Promise<T>): Promise<T> {
    return memoizePromise(this.cycle as Map<string, Promise<T>>, key, load);
  }
}
