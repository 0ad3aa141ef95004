/**
 * SBOMs of the images the hub's containers run, generated from the image's `docker save` stream
 * (docs/security.md) and kept in storage by image id: an image id is its config digest, so the SBOM
 * of an id never changes and an image is read once. Requests for an image being read share that read.
 * The kept SBOMs are bounded (the least recently generated go first).
 */
import type { Storage } from 'unstorage';
import type { DockerHost } from '../../../shared/docker/docker-host';
import type { Logger } from '../../../shared/logging/logger';
import { createConcurrencyLimiter } from '../../../shared/registry/request-limiter';
import { generateSbom } from './sbom/generate-sbom';
import type { ImageSbom } from './sbom-model';

/** Bumped when the generator catalogues differently: SBOMs kept by an older one are read again. */
const GENERATOR_VERSION = 1;
const KEY_PREFIX = `sbom:v${GENERATOR_VERSION}:`;
const INDEX_KEY = `sbom:v${GENERATOR_VERSION}:index`;
const DEFAULT_MAX_KEPT = 200;
/** Reading an image is CPU-bound (inflating layers): a few at once, the others wait their turn. */
const DEFAULT_CONCURRENT_READS = 2;

/** The container's host cannot export images (an agent without the request, a runtime without Docker). */
export class SbomUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SbomUnavailableError';
  }
}

export interface SbomServiceOptions {
  storage: Storage;
  logger: Logger;
  now: () => number;
  maxKept?: number;
  concurrentReads?: number;
}

export interface SbomRequest {
  host: DockerHost;
  imageId: string;
  imageRef: string;
}

export interface SbomService {
  /** Throws SbomUnavailableError, DockerNotFoundError, or the generator's error for that image. */
  sbomOf(request: SbomRequest): Promise<ImageSbom>;
  /** Image reads started since the hub started (each image once: the cache and shared reads). */
  readonly reads: number;
}

const hexOf = (imageId: string) => imageId.replace(/^sha256:/, '');

export function createSbomService(options: SbomServiceOptions): SbomService {
  const inFlight = new Map<string, Promise<ImageSbom>>();
  const maxKept = options.maxKept ?? DEFAULT_MAX_KEPT;
  let reads = 0;
  // The shared limiter hands a finishing read's slot straight to the next in line.
  const readSlots = createConcurrencyLimiter(options.concurrentReads ?? DEFAULT_CONCURRENT_READS);
  // Index writes one after the other: two images finishing together must not lose an entry.
  let indexWrite: Promise<unknown> = Promise.resolve();

  const remember = (imageId: string, sbom: ImageSbom) => {
    indexWrite = indexWrite
      .then(async () => {
        const index = ((await options.storage.getItem<string[]>(INDEX_KEY)) ?? []).filter((id) => id !== imageId);
        index.push(imageId);
        await options.storage.setItem(`${KEY_PREFIX}${hexOf(imageId)}`, sbom as unknown as Record<string, unknown>);
        while (index.length > maxKept) {
          const dropped = index.shift() as string;
          await options.storage.removeItem(`${KEY_PREFIX}${hexOf(dropped)}`);
        }
        await options.storage.setItem(INDEX_KEY, index);
      })
      .catch((error) => options.logger.warn('sbom not kept', { image: imageId, error: String(error) }));
    return indexWrite;
  };

  const read = async (request: SbomRequest): Promise<ImageSbom> => {
    const kept = await options.storage.getItem<ImageSbom>(`${KEY_PREFIX}${hexOf(request.imageId)}`);
    if (kept && typeof kept === 'object' && Array.isArray(kept.packages)) return kept;
    const exportImage = request.host.exportImage?.bind(request.host);
    if (!exportImage) throw new SbomUnavailableError(`the Docker host ${request.host.endpoint} cannot export images`);
    return readSlots.run(async () => {
      reads++;
      const controller = new AbortController();
      const started = options.now();
      try {
        const sbom = await generateSbom(exportImage(request.imageId, controller.signal), request, {
          now: () => new Date(options.now()),
        });
        options.logger.info('sbom generated', {
          image: request.imageRef,
          imageId: request.imageId,
          packages: sbom.packages.length,
          ms: options.now() - started,
        });
        await remember(request.imageId, sbom);
        return sbom;
      } finally {
        // A failed read stops the Engine's stream rather than leave it running.
        controller.abort();
      }
    });
  };

  return {
    get reads() {
      return reads;
    },
    sbomOf(request) {
      const running = inFlight.get(request.imageId);
      if (running) return running;
      const started = read(request).finally(() => inFlight.delete(request.imageId));
      inFlight.set(request.imageId, started);
      return started;
    },
  };
}
