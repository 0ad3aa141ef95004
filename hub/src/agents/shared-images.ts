import { BoundedCache } from '../../../shared/bounded-cache';
import type { DockerContainerDetails, DockerImageDetails } from '../../../shared/docker/docker-host';
import { isSensitiveKey } from '../../../shared/redact';
import { sameJson } from '../watchers/same-json';

/** Distinct images remembered: far more than a fleet runs, and at ~400 bytes each a bound of a few MB. */
const MAX_SHARED_IMAGES = 10_000;
/** Distinct texts remembered (image references, environment entries): a bound of a few MB. */
const MAX_SHARED_TEXTS = 50_000;

/**
 * One object for each distinct image the fleet's agents report (issue 30 item 3): each agent's
 * frames are parsed into objects of their own, so 10,000 agents running the same 20 images held
 * 200,000 copies of 20 descriptions. An image id is a digest of the image's content, so agents
 * mostly report it alike; one reported otherwise (its host tagged it differently) becomes the
 * shared one from then on. The objects are never changed after parsing (hosts replace a whole
 * image, never edit one), which is what makes sharing them safe.
 */
export class SharedImages {
  private readonly byId = new Map<string, DockerImageDetails>();
  private readonly texts: BoundedCache<string, string>;

  constructor(
    private readonly max = MAX_SHARED_IMAGES,
    maxTexts = MAX_SHARED_TEXTS,
  ) {
    this.texts = new BoundedCache(maxTexts);
  }

  /**
   * A container's details with the texts that containers of one image repeat (its image id, its
   * reference, the environment the image sets) as one string each across the fleet: each frame is
   * parsed into strings of its own, and at 10,000 agents × 20 containers those copies were about a
   * tenth of the hub's heap (issue 30 item 3). Changes `details`, which the caller owns (just parsed).
   */
  shareTexts(details: DockerContainerDetails): DockerContainerDetails {
    details.imageId = this.byId.get(details.imageId)?.id ?? this.text(details.imageId);
    details.image = this.text(details.image);
    const { env } = details;
    for (let i = 0; i < env.length; i++) {
      const entry = env[i] as string;
      const eq = entry.indexOf('=');
      // A secret is not kept beyond its container's record (nor do containers share one, as a rule).
      if (!isSensitiveKey(eq === -1 ? entry : entry.slice(0, eq))) env[i] = this.text(entry);
    }
    return details;
  }

  /** The shared object equal to `image`, or `image` itself, remembered as the shared one. */
  share(image: DockerImageDetails): DockerImageDetails {
    const known = this.byId.get(image.id);
    const shared = known && (known === image || sameJson(known, image)) ? known : image;
    // Re-inserted, so the first in the map is the one reported longest ago: the one to forget.
    this.byId.delete(image.id);
    this.byId.set(image.id, shared);
    if (this.byId.size > this.max) {
      const oldest = this.byId.keys().next().value;
      if (oldest !== undefined) this.byId.delete(oldest);
    }
    return shared;
  }

  get size(): number {
    return this.byId.size;
  }

  /** Distinct texts remembered (tests). */
  get textCount(): number {
    return this.texts.size;
  }

  /** The one string equal to `value`; the pool forgets the least recently seen past its bound. */
  private text(value: string): string {
    const known = this.texts.get(value);
    if (known !== undefined) return known;
    this.texts.set(value, value);
    return value;
  }
}
