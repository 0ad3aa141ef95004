import { BoundedCache } from '../../../shared/bounded-cache';
import type { Logger } from '../../../shared/logging/logger';
import type { FetchLike } from '../../../shared/registry/registry-transport';
import type { Container } from '../../../shared/schemas/container';
import type { LoadedRegistryProviders } from '../registries/load-registry-providers';
import type { ForgeOutcome } from './forge-http';
import { fetchGithubReleases } from './github-releases';
import { fetchGitlabReleases } from './gitlab-releases';
import { findRelease, type Release, releasesBetween } from './release-match';
import type { ReleaseNotesConfig } from './release-notes-config';
import { type ReleaseSource, releaseSourceOf } from './release-source';
import { formatVersion, type ReleaseVersion } from './release-version';

/** What an answer says of the notes (docs/release-notes.md); every one is a 200, the container routes never fail on a forge. */
export type ReleaseNotesStatus =
  | 'ok'
  | 'no-update'
  | 'no-source'
  | 'unsupported-source'
  | 'no-releases'
  | 'release-not-found'
  | 'internetless'
  | 'rate-limited'
  | 'upstream-error';

/** The repository as an answer shows it. */
export type SourceView = Pick<ReleaseSource, 'forge' | 'host' | 'repository' | 'url' | 'label'>;

interface AnswerBase {
  containerId: string;
  status: ReleaseNotesStatus;
  message: string;
  source: SourceView | null;
  /** ISO 8601: when a rate-limited forge may be asked again. */
  retryAt?: string;
}

export interface ReleaseNotesAnswer extends AnswerBase {
  /** The tag the container would be updated to, or null when no update is pending. */
  target: string | null;
  release: Release | null;
}

export interface IntermediateNotesAnswer extends AnswerBase {
  from: string;
  to: string | null;
  releases: Release[];
}

export interface ReleaseNotesService {
  notes(container: Container): Promise<ReleaseNotesAnswer>;
  /**
   * The release of the pending update's target when its repository's list is already cached, else
   * undefined: never asks a forge, so a notification never waits on one (docs/release-notes.md).
   */
  cachedRelease(container: Container): Release | undefined;
  between(container: Container, from: ReleaseVersion, to: ReleaseVersion): Promise<IntermediateNotesAnswer>;
}

export interface ReleaseNotesServiceDeps {
  config: ReleaseNotesConfig;
  /** Where a token is taken when no DD_RELEASE_NOTES_*_TOKEN is set: a configured ghcr or gitlab registry. */
  registries: LoadedRegistryProviders | undefined;
  /** internetlessMode (http-interface §2.13): no forge is asked, the cache still answers. */
  internetless: () => boolean;
  fetch: FetchLike;
  now: () => number;
  logger: Logger;
}

/** Release lists are kept an hour (a new release shows within that), for at most this many repositories. */
const CACHE_TTL_MS = 3_600_000;
const CACHE_ENTRIES = 500;

type Listing =
  | { source: ReleaseSource; outcome: ForgeOutcome }
  | { status: ReleaseNotesStatus; message: string; source: ReleaseSource | null; retryAt?: number };

/** The tag a pending update moves to; a digest update keeps the tag. */
export function updateTarget(container: Container): string | undefined {
  if (!container.updateAvailable) return undefined;
  if (container.updateKind.kind === 'tag') return container.updateKind.remoteValue;
  return container.result?.tag ?? container.image.tag.value;
}

const view = (source: ReleaseSource | null): SourceView | null =>
  source && {
    forge: source.forge,
    host: source.host,
    repository: source.repository,
    url: source.url,
    label: source.label,
  };

/**
 * Release notes from GitHub and GitLab for the containers' images: one release list per repository,
 * cached and shared by every container of it, a forge whose rate limit is spent left alone until its
 * reset, nothing asked while internetlessMode is on.
 */
export function createReleaseNotesService(deps: ReleaseNotesServiceDeps): ReleaseNotesService {
  const cache = new BoundedCache<string, ForgeOutcome>(CACHE_ENTRIES, deps.now);
  const inFlight = new Map<string, Promise<ForgeOutcome>>();
  const pausedUntil = new Map<string, number>();

  /** The registry provider's password for a host: a ghcr token is a GitHub token, a gitlab one a GitLab token. */
  const registryToken = async (type: string, registryHost: string): Promise<string | undefined> => {
    const provider = deps.registries?.configured.find((p) => p.type === type && p.matches(registryHost));
    if (!provider) return undefined;
    try {
      return (await provider.connection(registryHost)).credentials?.password;
    } catch {
      return undefined;
    }
  };

  /**
   * The token for a source's forge, from the configuration of that host only: github.com's (or a
   * ghcr registry's) goes to github.com's API alone, an Enterprise or self-hosted instance gets its
   * own DD_RELEASE_NOTES_*_HOST_TOKENS entry (or, for GitLab, the registry configured for it).
   */
  const tokenFor = async (source: ReleaseSource): Promise<string | undefined> => {
    const instances = source.forge === 'github' ? deps.config.githubHosts : deps.config.gitlabHosts;
    const instance = instances.find((configured) => configured.host === source.instance);
    if (source.forge === 'github') {
      if (source.instance !== undefined) return instance?.token;
      return deps.config.githubToken ?? registryToken('ghcr', 'ghcr.io');
    }
    if (source.instance !== undefined && instance?.token !== undefined) return instance.token;
    if (source.instance === undefined && deps.config.gitlabToken !== undefined) return deps.config.gitlabToken;
    return (await registryToken('gitlab', `registry.${source.host}`)) ?? registryToken('gitlab', source.host);
  };

  const fetchList = async (source: ReleaseSource): Promise<ForgeOutcome> => {
    const options = { fetch: deps.fetch, now: deps.now, timeoutMs: deps.config.timeoutMs };
    const token = await tokenFor(source);
    const outcome =
      source.forge === 'github'
        ? await fetchGithubReleases(source.apiBase, source.repository, token, options)
        : await fetchGitlabReleases(source.apiBase, source.repository, token, options);
    if (outcome.kind === 'ok' || outcome.kind === 'not-found') {
      cache.set(`${source.apiBase} ${source.repository}`, outcome, CACHE_TTL_MS);
    } else if (outcome.kind === 'rate-limited') {
      pausedUntil.set(source.apiBase, outcome.retryAt);
      deps.logger.warn('release notes: forge rate limit spent', {
        forge: source.forge,
        host: source.host,
        retryAt: new Date(outcome.retryAt).toISOString(),
      });
    } else {
      deps.logger.warn('release notes: forge failed', {
        forge: source.forge,
        host: source.host,
        repository: source.repository,
        reason: outcome.message,
      });
    }
    return outcome;
  };

  const listing = async (container: Container): Promise<Listing> => {
    const source = releaseSourceOf(container, deps.config);
    if ('status' in source) return { ...source, source: null };
    const key = `${source.apiBase} ${source.repository}`;
    const cached = cache.get(key);
    if (cached) return { source, outcome: cached };
    if (deps.internetless()) {
      return {
        status: 'internetless',
        message:
          'internetlessMode is on: the hub asks no forge for release notes, and none are cached for this repository',
        source,
      };
    }
    const paused = pausedUntil.get(source.apiBase) ?? 0;
    if (paused > deps.now()) return { source, outcome: { kind: 'rate-limited', retryAt: paused } };
    // One request per repository however many containers (or clients) ask at once.
    let pending = inFlight.get(key);
    if (!pending) {
      pending = fetchList(source).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return { source, outcome: await pending };
  };

  /** The answer's fields for anything but a usable release list, or the list. */
  const settle = async (
    container: Container,
  ): Promise<
    { source: ReleaseSource; releases: Release[] } | (Omit<AnswerBase, 'containerId'> & { source: SourceView | null })
  > => {
    const listed = await listing(container);
    if ('status' in listed) {
      return {
        status: listed.status,
        message: listed.message,
        source: view(listed.source),
      };
    }
    const { source, outcome } = listed;
    const where = `${source.forge} ${source.repository}`;
    switch (outcome.kind) {
      case 'ok':
        if (outcome.releases.length > 0) return { source, releases: outcome.releases };
        return { status: 'no-releases', message: `${where} has published no releases`, source: view(source) };
      case 'not-found':
        return {
          status: 'no-releases',
          message: `${where} answered 404: no such repository, or not visible without a token`,
          source: view(source),
        };
      case 'rate-limited':
        return {
          status: 'rate-limited',
          message: `The ${source.host} rate limit is spent; release notes are asked again after retryAt`,
          source: view(source),
          retryAt: new Date(outcome.retryAt).toISOString(),
        };
      case 'error':
        return { status: 'upstream-error', message: `${where}: ${outcome.message}`, source: view(source) };
    }
  };

  return {
    cachedRelease(container) {
      const target = updateTarget(container);
      const source = target === undefined ? undefined : releaseSourceOf(container, deps.config);
      if (target === undefined || !source || 'status' in source) return undefined;
      const outcome = cache.get(`${source.apiBase} ${source.repository}`);
      if (outcome?.kind !== 'ok') return undefined;
      return findRelease(outcome.releases, target, container.image.name) ?? undefined;
    },

    async notes(container) {
      const target = updateTarget(container);
      const base = { containerId: container.id, target: target ?? null, release: null };
      if (target === undefined) {
        return { ...base, status: 'no-update', message: 'No update is pending', source: view(null) };
      }
      const settled = await settle(container);
      if (!('releases' in settled)) return { ...base, ...settled };
      const release = findRelease(settled.releases, target, container.image.name);
      if (!release) {
        return {
          ...base,
          status: 'release-not-found',
          message: `No release of ${settled.source.repository} matches the tag ${target}`,
          source: view(settled.source),
        };
      }
      return { ...base, status: 'ok', message: `Release ${release.tag}`, source: view(settled.source), release };
    },

    async between(container, from, to) {
      const base = { containerId: container.id, from: formatVersion(from), to: formatVersion(to), releases: [] };
      const settled = await settle(container);
      if (!('releases' in settled)) return { ...base, ...settled };
      const releases = releasesBetween(settled.releases, from, to, container.image.name);
      return {
        ...base,
        status: 'ok',
        message: `${releases.length} release${releases.length === 1 ? '' : 's'} after ${base.from} up to ${base.to}`,
        source: view(settled.source),
        releases,
      };
    },
  };
}

/** The notes of a stored container by id, for the update preview; undefined for an unknown one. */
export function releaseNotesOf(
  containers: { get(id: string): Container | undefined },
  service: Pick<ReleaseNotesService, 'notes'>,
): (containerId: string) => Promise<ReleaseNotesAnswer | undefined> {
  return async (containerId) => {
    const container = containers.get(containerId);
    return container && service.notes(container);
  };
}
