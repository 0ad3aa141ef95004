/** A parsed image reference: `ghcr.io/owner/app:1.2.3@sha256:…`. */
export interface ImageReference {
  /** Registry host as users write it: `docker.io`, `ghcr.io`, `127.0.0.1:5000`. */
  registry: string;
  /** Repository path within the registry: `library/nginx`, `owner/app`. */
  repository: string;
  tag?: string;
  digest?: string;
}

export const DOCKER_HUB = 'docker.io';
const DOCKER_HUB_ALIASES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com']);

const REPOSITORY_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/;
const MAX_REFERENCE_LENGTH = 512;

export class ImageReferenceError extends Error {
  constructor(reference: string, problem: string) {
    super(`invalid image reference ${JSON.stringify(reference.slice(0, 80))}: ${problem}`);
    this.name = 'ImageReferenceError';
  }
}

/** The first path component names a registry when it looks like a host (the Docker CLI's rule). */
function isRegistryHost(component: string): boolean {
  return component.includes('.') || component.includes(':') || component === 'localhost';
}

/**
 * Parses a reference the way the Docker CLI does: no host means Docker Hub, and a single-name
 * Hub repository lives under `library/`.
 */
export function parseImageReference(input: string): ImageReference {
  const reference = input.trim();
  if (reference.length === 0 || reference.length > MAX_REFERENCE_LENGTH)
    throw new ImageReferenceError(input, 'empty or too long');
  let rest = reference;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw new ImageReferenceError(input, 'malformed digest');
  }
  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw new ImageReferenceError(input, 'malformed tag');
  }
  const parts = rest.split('/');
  let registry = DOCKER_HUB;
  if (parts.length > 1 && isRegistryHost(parts[0] as string)) registry = (parts.shift() as string).toLowerCase();
  if (DOCKER_HUB_ALIASES.has(registry)) registry = DOCKER_HUB;
  if (registry === DOCKER_HUB && parts.length === 1) parts.unshift('library');
  if (parts.length === 0 || !parts.every((part) => REPOSITORY_COMPONENT.test(part))) {
    throw new ImageReferenceError(input, 'malformed repository name');
  }
  return {
    registry,
    repository: parts.join('/'),
    ...(tag !== undefined && { tag }),
    ...(digest !== undefined && { digest }),
  };
}

/** The reference as users write it, without the implied Docker Hub host and `library/`. */
export function formatImageReference(ref: ImageReference): string {
  let name =
    ref.registry === DOCKER_HUB ? ref.repository.replace(/^library\//, '') : `${ref.registry}/${ref.repository}`;
  if (ref.tag !== undefined) name += `:${ref.tag}`;
  if (ref.digest !== undefined) name += `@${ref.digest}`;
  return name;
}

/** Docker Hub's registry API lives on another host than the name users write. */
export function registryApiHost(registry: string): string {
  return registry === DOCKER_HUB ? 'registry-1.docker.io' : registry;
}

/** Loopback hosts are always reachable over plain http (decisions §2). */
export function isLoopbackHost(host: string): boolean {
  const hostname = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return hostname === 'localhost' || hostname === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}
