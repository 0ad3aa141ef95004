import { type ImageReference, parseImageReference } from './image-reference';

const MAX_ENTRIES = 4096;
const parsed = new Map<string, Readonly<ImageReference> | undefined>();

/**
 * parseImageReference for the references every record of a watch cycle parses again (its image,
 * its RepoDigests, its lookup reference): a thousand containers run a hundred references, so a
 * cycle parsed each one thirty times (issue 29). Answers undefined for one that does not parse.
 * The answers are shared, hence frozen; the cache starts over past 4,096 references.
 */
export function cachedImageReference(reference: string): Readonly<ImageReference> | undefined {
  if (parsed.has(reference)) return parsed.get(reference);
  let ref: Readonly<ImageReference> | undefined;
  try {
    ref = Object.freeze(parseImageReference(reference));
  } catch {
    ref = undefined;
  }
  if (parsed.size >= MAX_ENTRIES) parsed.clear();
  parsed.set(reference, ref);
  return ref;
}
