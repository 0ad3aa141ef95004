import { DOCKER_HUB, parseImageReference } from '../../../../shared/registry/image-reference';

/**
 * One image a registry event says was pushed. `registry` is the host as image references name it
 * (`docker.io`, `ghcr.io`, `127.0.0.1:5000`); undefined when the payload does not say, and then
 * the repository alone is matched.
 */
export interface PushedImage {
  registry: string | undefined;
  repository: string;
  tag?: string;
  digest?: string;
}

/** What a parser makes of a payload: the pushed images, and how many entries were not pushes (pulls, deletes, blobs). */
export interface ParsedRegistryEvent {
  images: PushedImage[];
  ignored: number;
}

/** One payload format, in one file each (`registry-events/<name>.ts`). */
export interface RegistryEventFormat {
  name: string;
  /** True when the payload has this format's shape, pushes or not. */
  matches(payload: unknown): boolean;
  parse(payload: unknown): ParsedRegistryEvent;
}

const DOCKER_HUB_HOSTS = new Set([
  'docker.io',
  'index.docker.io',
  'registry-1.docker.io',
  'registry.hub.docker.com',
  'hub.docker.com',
]);
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/;
const HOST = /^[a-z0-9.-]+(?::\d{1,5})?$|^\[[0-9a-f:.]+\](?::\d{1,5})?$/;

/** `https://Ghcr.io/x` or `registry.local:5000` → the host part, lower-cased; undefined when it is not a host. */
export function registryHostOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const host = value
    .trim()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .split('/')[0]
    ?.toLowerCase();
  if (!host || !HOST.test(host)) return undefined;
  return DOCKER_HUB_HOSTS.has(host) ? DOCKER_HUB : host;
}

/**
 * A pushed image, normalised the way image references are (lower-case repository, `library/`
 * for single-name Docker Hub repositories); undefined when the repository is not a valid name.
 */
export function pushedImage(
  host: string | undefined,
  repository: string | undefined,
  tag?: string,
  digest?: string,
): PushedImage | undefined {
  if (repository === undefined) return undefined;
  const path = repository
    .trim()
    .replace(/^\/+|\/+$/g, '')
    .toLowerCase();
  let name: string;
  try {
    // Validated under a placeholder host, so the first component is never taken for a host.
    name = parseImageReference(`registry.invalid/${path}`).repository;
  } catch {
    return undefined;
  }
  const registry = registryHostOf(host);
  if (registry === DOCKER_HUB && !name.includes('/')) name = `library/${name}`;
  return {
    registry,
    repository: name,
    ...(tag !== undefined && TAG.test(tag) && { tag }),
    ...(digest !== undefined && DIGEST.test(digest) && { digest }),
  };
}

/**
 * `host/name/space:tag@digest` (Harbor's resource_url, GHCR's package_url, Quay's docker_url):
 * the host is the first component, as in a reference with an explicit registry.
 */
export function pushedImageFromUrl(
  reference: string | undefined,
  tag?: string,
  digest?: string,
): PushedImage | undefined {
  if (reference === undefined) return undefined;
  let rest = reference.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const at = rest.indexOf('@');
  const ownDigest = at === -1 ? undefined : rest.slice(at + 1);
  if (at !== -1) rest = rest.slice(0, at);
  const slash = rest.indexOf('/');
  if (slash === -1) return undefined;
  let path = rest.slice(slash + 1);
  const colon = path.lastIndexOf(':');
  const ownTag = colon > path.lastIndexOf('/') ? path.slice(colon + 1) : undefined;
  if (colon > path.lastIndexOf('/')) path = path.slice(0, colon);
  return pushedImage(rest.slice(0, slash), path, tag || ownTag || undefined, digest ?? ownDigest);
}
