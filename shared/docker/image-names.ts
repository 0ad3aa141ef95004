/**
 * Image names as the Engine takes them, kept in the spelling the user wrote (`nginx:1.27`, not
 * `docker.io/library/nginx:1.27`): a re-created container shows the same `Config.Image` style.
 */

/** `name[:tag][@digest]` split at the tag's colon (a registry port's colon comes before the last `/`). */
export function splitReference(reference: string): {
  repository: string;
  tag: string | undefined;
  digest: string | undefined;
} {
  const at = reference.indexOf('@');
  const digest = at === -1 ? undefined : reference.slice(at + 1);
  const named = at === -1 ? reference : reference.slice(0, at);
  const colon = named.lastIndexOf(':');
  if (colon > named.lastIndexOf('/')) return { repository: named.slice(0, colon), tag: named.slice(colon + 1), digest };
  return { repository: named, tag: undefined, digest };
}

/** The same repository with another tag, any digest pin dropped. */
export function withTag(reference: string, tag: string): string {
  return `${splitReference(reference).repository}:${tag}`;
}

/**
 * What to pull: the reference itself, with `:latest` when it names neither tag nor digest (the
 * Engine would otherwise pull every tag of the repository).
 */
export function pullReference(reference: string): string {
  const { tag, digest } = splitReference(reference);
  return tag === undefined && digest === undefined ? `${reference}:latest` : reference;
}
