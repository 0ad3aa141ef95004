import * as v from 'valibot';
import {
  type ImageConfig,
  ImageConfigSchema,
  type ImageIndex,
  ImageIndexSchema,
  type ImageManifest,
  ImageManifestSchema,
  type Platform,
  selectPlatform,
  sha256Digest,
} from './manifest';
import { isIndexMediaType, MANIFEST_ACCEPT } from './media-types';
import type { RegistryAuth } from './registry-auth';
import { RegistryError } from './registry-error';
import { discard, type RegistryResponse, type RegistryTransport, readCapped, urlHostOf } from './registry-transport';

export interface ManifestHead {
  digest: string;
  mediaType: string | undefined;
}

export type FetchedManifest = { digest: string; mediaType: string | undefined } & (
  | { kind: 'index'; index: ImageIndex }
  | { kind: 'manifest'; manifest: ImageManifest }
);

export interface PlatformImage {
  /** Digest of the platform's image manifest. */
  manifestDigest: string;
  configDigest: string;
}

export interface ListTagsOptions {
  /** Stop after this many tags (a registry with millions would otherwise never end). */
  maxTags?: number;
  maxPages?: number;
}

export interface RegistryClientOptions {
  /** `https://ghcr.io`, `http://127.0.0.1:5000`. */
  baseUrl: string;
  transport: RegistryTransport;
  auth: RegistryAuth;
}

const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
const MAX_CONFIG_BYTES = 8 * 1024 * 1024;
const MAX_TAGS_PAGE_BYTES = 16 * 1024 * 1024;
const MAX_INDEX_DEPTH = 3;
const DIGEST_PATTERN = /^sha256:[a-f0-9]{64}$/;
const TagListSchema = v.object({ tags: v.nullish(v.array(v.string())) });

/**
 * The `rel="next"` target of a Link header, resolved against the page. Targets are read between
 * their angle brackets before anything else, since a cursor may itself hold commas.
 */
export function nextPageUrl(link: string | null, current: string): string | undefined {
  if (!link) return undefined;
  for (const match of link.matchAll(/<([^>]*)>((?:\s*;[^,<]*)*)/g)) {
    if (!/;\s*rel="?([^";]*\s)?next(\s[^";]*)?"?/i.test(match[2] ?? '')) continue;
    try {
      return new URL(match[1] ?? '', current).toString();
    } catch {
      throw new RegistryError('protocol', `${urlHostOf(current)}: unreadable Link header`);
    }
  }
  return undefined;
}

/**
 * A client of the OCI distribution API for one registry. It only reads: manifests (HEAD first,
 * since a HEAD is not counted as a pull by Docker Hub), image configs and tag lists.
 */
export class RegistryClient {
  constructor(private readonly options: RegistryClientOptions) {}

  get host(): string {
    return urlHostOf(this.options.baseUrl);
  }

  /** The digest a tag points to (the index digest for multi-platform images). */
  async headManifest(repository: string, reference: string): Promise<ManifestHead> {
    const response = await this.request('HEAD', repository, `/manifests/${reference}`, { accept: MANIFEST_ACCEPT });
    await discard(response);
    const digest = response.headers.get('docker-content-digest');
    if (digest && DIGEST_PATTERN.test(digest)) return { digest, mediaType: contentType(response) };
    // Some registries omit the header on HEAD: the body's own hash is the digest.
    const fetched = await this.getManifest(repository, reference);
    return { digest: fetched.digest, mediaType: fetched.mediaType };
  }

  async getManifest(repository: string, reference: string): Promise<FetchedManifest> {
    const response = await this.request('GET', repository, `/manifests/${reference}`, { accept: MANIFEST_ACCEPT });
    const bytes = await readCapped(response, MAX_MANIFEST_BYTES, `manifest ${repository}:${reference}`, this.host);
    const digest = await sha256Digest(bytes);
    if (reference.startsWith('sha256:') && reference !== digest) {
      throw new RegistryError('protocol', `manifest ${repository}@${reference} does not match its digest`);
    }
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw new RegistryError('protocol', `manifest ${repository}:${reference} is not JSON`);
    }
    const mediaType =
      (typeof json === 'object' && json !== null && 'mediaType' in json ? String(json.mediaType) : undefined) ??
      contentType(response);
    const asIndex = v.safeParse(ImageIndexSchema, json);
    if (asIndex.success && (isIndexMediaType(mediaType) || !('config' in (json as object)))) {
      return { kind: 'index', index: asIndex.output, digest, mediaType };
    }
    const asManifest = v.safeParse(ImageManifestSchema, json);
    if (asManifest.success) return { kind: 'manifest', manifest: asManifest.output, digest, mediaType };
    throw new RegistryError(
      'protocol',
      `manifest ${repository}:${reference} is neither an image index nor an image manifest`,
    );
  }

  /** Follows (nested) indexes down to the image manifest of one platform. */
  async resolvePlatform(repository: string, reference: string, platform: Platform): Promise<PlatformImage> {
    let current = await this.getManifest(repository, reference);
    for (let depth = 0; current.kind === 'index'; depth++) {
      if (depth >= MAX_INDEX_DEPTH)
        throw new RegistryError('protocol', `${repository}:${reference}: indexes nested too deeply`);
      const entry = selectPlatform(current.index, platform);
      if (!entry) {
        const wanted = [platform.os, platform.architecture, platform.variant].filter(Boolean).join('/');
        throw new RegistryError('not-found', `${repository}:${reference} has no image for ${wanted}`);
      }
      current = await this.getManifest(repository, entry.digest);
    }
    return { manifestDigest: current.digest, configDigest: current.manifest.config.digest };
  }

  async getImageConfig(repository: string, configDigest: string): Promise<ImageConfig> {
    if (!DIGEST_PATTERN.test(configDigest))
      throw new RegistryError('protocol', `malformed config digest ${configDigest.slice(0, 80)}`);
    const response = await this.request('GET', repository, `/blobs/${configDigest}`, {});
    const bytes = await readCapped(response, MAX_CONFIG_BYTES, `config of ${repository}`, this.host);
    if ((await sha256Digest(bytes)) !== configDigest)
      throw new RegistryError('protocol', `config of ${repository} does not match its digest`);
    try {
      const json: unknown = JSON.parse(new TextDecoder().decode(bytes));
      if (Array.isArray(json)) throw new Error('an array');
      return v.parse(ImageConfigSchema, json);
    } catch {
      throw new RegistryError('protocol', `config of ${repository} is not a valid image config`);
    }
  }

  /** Every tag, following `Link` as an opaque cursor (rebuilding `last=` breaks some registries). */
  async listTags(repository: string, options: ListTagsOptions = {}): Promise<string[]> {
    const maxTags = options.maxTags ?? 200_000;
    const maxPages = options.maxPages ?? 2_000;
    const tags: string[] = [];
    let url: string | undefined = this.url(repository, '/tags/list');
    const origin = new URL(url).origin;
    const visited = new Set<string>();
    for (let page = 0; url && page < maxPages && tags.length < maxTags; page++) {
      const response = await this.send('GET', url, repository, { accept: 'application/json' });
      const bytes = await readCapped(response, MAX_TAGS_PAGE_BYTES, `tag list of ${repository}`, this.host);
      const json = safeJson(bytes);
      const parsed = v.safeParse(TagListSchema, json);
      if (!parsed.success || Array.isArray(json))
        throw new RegistryError('protocol', `tag list of ${repository} is malformed`);
      for (const tag of parsed.output.tags ?? []) if (tags.length < maxTags) tags.push(tag);
      visited.add(url);
      const next = nextPageUrl(response.headers.get('link'), url);
      // A page pointing back at an earlier one would repeat its tags until maxPages: a broken registry.
      if (next && visited.has(next)) throw new RegistryError('protocol', `tag list of ${repository} pages in a loop`);
      // A cursor pointing at another origin would receive our credentials: stop there.
      url = next && new URL(next).origin === origin ? next : undefined;
    }
    return tags;
  }

  private url(repository: string, suffix: string): string {
    return `${this.options.baseUrl}/v2/${repository}${suffix}`;
  }

  private request(
    method: string,
    repository: string,
    suffix: string,
    headers: Record<string, string>,
  ): Promise<RegistryResponse> {
    return this.send(method, this.url(repository, suffix), repository, headers);
  }

  /** Sends with the known credentials, answers one challenge, and maps failures to RegistryError kinds. */
  private async send(
    method: string,
    url: string,
    repository: string,
    headers: Record<string, string>,
  ): Promise<RegistryResponse> {
    const { transport, auth } = this.options;
    const scope = `repository:${repository}:pull`;
    let authorization = await auth.headerFor(scope);
    const withAuth = () => ({ ...headers, ...(authorization && { authorization }) });
    let response = await transport.send(url, { method, headers: withAuth() });
    if (response.status === 401) {
      const challenge = response.headers.get('www-authenticate');
      await discard(response);
      authorization = await auth.answerChallenge(challenge, scope, authorization);
      response = await transport.send(url, { method, headers: withAuth() });
      if (response.status === 401) {
        await discard(response);
        throw auth.refused(`${method} ${new URL(url).pathname} still answered 401`);
      }
    }
    if (response.ok) return response;
    await discard(response);
    const where = `${this.host}: ${method} ${new URL(url).pathname}`;
    if (response.status === 404) throw new RegistryError('not-found', `${where} answered 404`, { status: 404 });
    if (response.status === 403) throw auth.refused(`${where} answered 403`);
    throw new RegistryError(response.status >= 500 ? 'server' : 'protocol', `${where} answered ${response.status}`, {
      status: response.status,
    });
  }
}

function contentType(response: RegistryResponse): string | undefined {
  return response.headers.get('content-type')?.split(';')[0]?.trim() || undefined;
}

function safeJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}
