/**
 * What a cataloguer is: it picks the files it wants out of each layer as the layer streams by
 * (`selects`), reads each picked body into something small to keep (`read`: a capped text, a
 * parsed header), and once the layers are merged, turns the kept files of the final filesystem
 * into packages (`catalogue`). Reading per layer and cataloguing after the merge is what lets a
 * later layer replace or delete a database an earlier one wrote.
 */
import type { ImageDistro, SbomPackage } from '../sbom-model';

export interface CatalogueContext {
  distro?: ImageDistro;
}

export interface CatalogueResult {
  packages: SbomPackage[];
  /** One line per database with entries that could not be read (garbage lines, records without a name). */
  warnings: string[];
}

export interface KeptFile<T> {
  /** Absolute, as in the image: `/var/lib/dpkg/status`. */
  path: string;
  value: T;
}

export interface Cataloguer<T = unknown> {
  readonly name: string;
  /** `path` is absolute; `mode` the permission bits; called for regular files only. */
  selects(path: string, mode: number, size: number): boolean;
  /** Reads the streamed body; undefined keeps nothing (and still hides the same path of earlier layers). */
  read(body: AsyncIterable<Uint8Array>, size: number, path: string): Promise<T | undefined>;
  catalogue(files: KeptFile<T>[], context: CatalogueContext): CatalogueResult;
}

/** A file larger than its cataloguer's cap is not read: a warning says so. */
export class FileTooLargeError extends Error {
  constructor(path: string, size: number, cap: number) {
    super(`${path}: ${size} bytes, more than the ${cap} bytes read of such a file`);
    this.name = 'FileTooLargeError';
  }
}

/** The body as one buffer, refused beyond `cap` bytes (checked before reading anything). */
export async function readCapped(body: AsyncIterable<Uint8Array>, size: number, cap: number, path: string) {
  if (size > cap) throw new FileTooLargeError(path, size, cap);
  const out = new Uint8Array(size);
  let offset = 0;
  for await (const chunk of body) {
    if (offset + chunk.length > size) throw new FileTooLargeError(path, offset + chunk.length, cap);
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out.subarray(0, offset);
}

const decoder = new TextDecoder();

export async function readCappedText(body: AsyncIterable<Uint8Array>, size: number, cap: number, path: string) {
  return decoder.decode(await readCapped(body, size, cap, path));
}

export const MiB = 1024 * 1024;

/** A warning line naming what was skipped, or none when nothing was. */
export function skippedWarning(location: string, skipped: number, what: string): string[] {
  return skipped > 0 ? [`${location}: ${skipped} ${what} skipped`] : [];
}
