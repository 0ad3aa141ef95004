import type { Container } from './api';

export const shortDigest = (digest: string | undefined): string =>
  digest ? digest.replace(/^sha256:/, '').slice(0, 12) : '';

export function imageName(c: Container): string {
  const registry = c.image.registry.url && c.image.registry.url !== 'docker.io' ? `${c.image.registry.url}/` : '';
  return `${registry}${c.image.name}`;
}

/** "major", "minor", "patch", "digest" or "" when no update is pending. */
export function updateKindOf(c: Container): string {
  if (!c.updateAvailable) return '';
  if (c.updateKind.kind === 'digest') return 'digest';
  if (c.updateKind.kind === 'tag') return c.updateKind.semverDiff ?? 'tag';
  return 'update';
}

export function candidateOf(c: Container): string {
  if (!c.updateAvailable) return '';
  if (c.updateKind.kind === 'tag') return c.updateKind.remoteValue;
  if (c.updateKind.kind === 'digest') return shortDigest(c.updateKind.remoteValue);
  return c.result?.tag ?? '';
}

/** Where a container runs, as the views name it: its agent, or `this hub`. */
export const hostLabelOf = (c: Container): string => c.agent ?? 'this hub';
