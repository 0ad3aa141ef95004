import { type ImageReference, parseImageReference } from '../registry/image-reference';

/** Docker's reading of a reference: the implied host and `library/`, and `:latest` when neither tag nor digest is given. */
function canonical(reference: string): ImageReference | undefined {
  try {
    const parsed = parseImageReference(reference);
    return parsed.tag === undefined && parsed.digest === undefined ? { ...parsed, tag: 'latest' } : parsed;
  } catch {
    return undefined;
  }
}

/** `nginx:1.25` names the same image as `docker.io/library/nginx:1.25`, `nginx` the same as `nginx:latest`. */
export function sameImage(a: string, b: string): boolean {
  if (a.trim() === b.trim()) return true;
  const left = canonical(a);
  const right = canonical(b);
  if (!left || !right) return false;
  return (
    left.registry === right.registry &&
    left.repository === right.repository &&
    left.tag === right.tag &&
    left.digest === right.digest
  );
}
