/**
 * An image as `docker save` (`GET /images/{id}/get`) streams it, in either layout: Docker's
 * classic one (`<id>/layer.tar`, `manifest.json`, often after the layers; identical layers may be
 * symlinks to one another) or OCI's (`index.json` → manifest blob → `blobs/sha256/<hex>` layers,
 * which Docker 25+ writes with a `manifest.json` naming the blobs). Every layer-like entry is
 * catalogued as it streams by; the manifest then says which of them make up the image, in order.
 */
import { type ByteSource, chunksOf } from './byte-reader';
import { type Cataloguer, MiB, readCappedText } from './cataloguer';
import { catalogueLayer, type LayerFindings } from './layer-catalogue';
import { readTar } from './tar-reader';

export class ImageArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageArchiveError';
  }
}

/** JSON documents of an archive (manifests, configs, indexes) are small; a larger blob is a layer. */
const JSON_CAP = 4 * MiB;

export interface ImageLayers {
  /** Lowest first. */
  layers: LayerFindings[];
  /** The archive paths of those layers, same order. */
  layerPaths: string[];
}

interface ClassicManifestEntry {
  Config?: string;
  Layers?: string[];
}

interface OciDescriptor {
  mediaType?: string;
  digest?: string;
  platform?: { os?: string; architecture?: string };
}

/** The body's first bytes, and the whole body again as one iterable. */
async function headOf(body: AsyncIterable<Uint8Array>, wanted: number) {
  const iterator = body[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let length = 0;
  let done = false;
  while (length < wanted) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    head.push(next.value.slice());
    length += next.value.length;
  }
  const first = head[0] ?? new Uint8Array(0);
  const whole: AsyncIterable<Uint8Array> = {
    async *[Symbol.asyncIterator]() {
      yield* head;
      if (done) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    },
  };
  return { first, whole };
}

const looksLikeJson = (bytes: Uint8Array) => {
  for (const byte of bytes) {
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
    return byte === 0x7b || byte === 0x5b; // { or [
  }
  return false;
};

function resolveLink(from: string, target: string): string {
  const parts = from.split('/').slice(0, -1);
  for (const piece of target.split('/')) {
    if (piece === '..') parts.pop();
    else if (piece !== '.' && piece !== '') parts.push(piece);
  }
  return parts.join('/');
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ImageArchiveError(`${what} is not JSON`);
  }
}

/** The layers of the image in the archive (the one whose config is `imageId` when it holds several). */
export async function readImageArchive(
  source: ByteSource,
  cataloguers: readonly Cataloguer[],
  imageId?: string,
): Promise<ImageLayers> {
  const layers = new Map<string, LayerFindings | Error>();
  const jsonBlobs = new Map<string, string>();
  const links = new Map<string, string>();
  let manifest: string | undefined;
  let index: string | undefined;
  let entries = 0;
  for await (const entry of readTar(chunksOf(source))) {
    entries++;
    const { path } = entry;
    if (entry.type === 'symlink' || entry.type === 'hardlink') {
      if (entry.linkPath !== undefined) {
        links.set(path, entry.type === 'symlink' ? resolveLink(path, entry.linkPath) : entry.linkPath);
      }
      continue;
    }
    if (entry.type !== 'file') continue;
    if (path === 'manifest.json') manifest = await readCappedText(entry.body(), entry.size, JSON_CAP, path);
    else if (path === 'index.json') index = await readCappedText(entry.body(), entry.size, JSON_CAP, path);
    else if (path.endsWith('/layer.tar')) layers.set(path, await catalogueOrError(entry.body(), cataloguers));
    else if (/^blobs\/[a-z0-9]+\/[a-f0-9]+$/.test(path)) {
      const { first, whole } = await headOf(entry.body(), 1);
      if (entry.size <= JSON_CAP && looksLikeJson(first)) {
        jsonBlobs.set(path, await readCappedText(whole, entry.size, JSON_CAP, path));
      } else {
        layers.set(path, await catalogueOrError(whole, cataloguers));
      }
    }
  }
  if (entries === 0) throw new ImageArchiveError('the image archive is empty');
  const order = manifest !== undefined ? classicOrder(manifest, imageId) : ociOrder(index, jsonBlobs, imageId);
  const ordered: LayerFindings[] = [];
  for (const layerPath of order) {
    let resolved = layerPath;
    for (let hops = 0; links.has(resolved) && hops < 8; hops++) resolved = links.get(resolved) as string;
    const found = layers.get(resolved);
    if (found === undefined)
      throw new ImageArchiveError(`layer ${layerPath} listed in the manifest is not in the archive`);
    if (found instanceof Error) throw new ImageArchiveError(`layer ${layerPath}: ${found.message}`);
    ordered.push(found);
  }
  return { layers: ordered, layerPaths: order };
}

/** A blob that is not a layer of the image (an attestation) may fail to read: only a listed layer's failure counts. */
async function catalogueOrError(body: AsyncIterable<Uint8Array>, cataloguers: readonly Cataloguer[]) {
  try {
    return await catalogueLayer(body, cataloguers);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

const hexOf = (id: string | undefined) => id?.replace(/^sha256:/, '');

function classicOrder(text: string, imageId: string | undefined): string[] {
  const parsed = parseJson(text, 'manifest.json');
  const entries = (Array.isArray(parsed) ? parsed : []).filter(
    (entry): entry is ClassicManifestEntry => typeof entry === 'object' && entry !== null,
  );
  if (entries.length === 0) throw new ImageArchiveError('manifest.json lists no image');
  const wanted = hexOf(imageId);
  const entry =
    (wanted &&
      entries.find((candidate) => typeof candidate.Config === 'string' && candidate.Config.includes(wanted))) ||
    (entries[0] as ClassicManifestEntry);
  if (!Array.isArray(entry.Layers)) throw new ImageArchiveError('manifest.json: the image has no Layers');
  return entry.Layers.map(String);
}

const blobPath = (digest: string) => `blobs/${digest.replace(':', '/')}`;

type OciDocument = { manifests?: unknown; layers?: unknown; config?: { digest?: unknown } };

const asDocument = (value: unknown): OciDocument =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as OciDocument) : {};

function ociOrder(index: string | undefined, blobs: Map<string, string>, imageId: string | undefined): string[] {
  if (index === undefined) throw new ImageArchiveError('the archive has neither manifest.json nor index.json');
  const wanted = hexOf(imageId);
  let document = asDocument(parseJson(index, 'index.json'));
  // index → (nested index →) manifest; a multi-platform index is resolved to the manifest whose config is the image.
  for (let depth = 0; depth < 4 && !Array.isArray(document.layers); depth++) {
    const manifests = (Array.isArray(document.manifests) ? (document.manifests as OciDescriptor[]) : []).filter(
      (item) => typeof item?.digest === 'string',
    );
    const candidates = manifests
      .map((item) => blobs.get(blobPath(item.digest as string)))
      .filter((text): text is string => text !== undefined)
      .map((text) => asDocument(parseJson(text, 'an OCI manifest')));
    const byConfig = wanted
      ? candidates.find((candidate) => String(candidate.config?.digest ?? '').endsWith(wanted))
      : undefined;
    const next = byConfig ?? candidates.find((candidate) => Array.isArray(candidate.layers)) ?? candidates[0];
    if (!next) throw new ImageArchiveError('index.json names no manifest in the archive');
    document = next;
  }
  if (!Array.isArray(document.layers)) throw new ImageArchiveError('no OCI manifest with layers in the archive');
  return (document.layers as OciDescriptor[]).map((layer) => blobPath(String(layer?.digest)));
}
