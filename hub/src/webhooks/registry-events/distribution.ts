import * as v from 'valibot';
import {
  type ParsedRegistryEvent,
  type PushedImage,
  pushedImage,
  type RegistryEventFormat,
  registryHostOf,
} from './pushed-image';

/**
 * The distribution registry's own notifications (`registry:2`, Debian's docker-registry, and
 * what ACR and GitLab's registry build on): an envelope `{events: [...]}` of media type
 * `application/vnd.docker.distribution.events.v1+json`. Pushes and pulls of manifests and blobs
 * all arrive; only manifest pushes mean a new image, and the hub's own lookups come back as pulls.
 */
export const DistributionEventSchema = v.looseObject({
  action: v.string(),
  target: v.looseObject({
    repository: v.string(),
    mediaType: v.optional(v.string()),
    digest: v.optional(v.string()),
    tag: v.optional(v.string()),
    url: v.optional(v.string()),
  }),
  request: v.optional(v.looseObject({ host: v.optional(v.string()) })),
});
export type DistributionEvent = v.InferOutput<typeof DistributionEventSchema>;

const EnvelopeSchema = v.looseObject({ events: v.array(v.unknown()) });

/** Manifest, index and manifest-list types, Docker's and OCI's; blobs (layers, configs) are other types. */
const MANIFEST_TYPE = /manifest|index/i;

/** The image one event names, when it is the push of a manifest; undefined for anything else. */
export function pushedImageOfEvent(event: DistributionEvent): PushedImage | undefined {
  if (event.action !== 'push') return undefined;
  const { target } = event;
  // Pushed by tag, or a manifest pushed by digest (an index's children, a digest-only push).
  if (target.tag === undefined && !MANIFEST_TYPE.test(target.mediaType ?? '')) return undefined;
  const host = event.request?.host ?? (target.url ? registryHostOf(target.url) : undefined);
  return pushedImage(host, target.repository, target.tag, target.digest);
}

export const distributionFormat: RegistryEventFormat = {
  name: 'distribution',
  matches: (payload) => v.is(EnvelopeSchema, payload),
  parse(payload): ParsedRegistryEvent {
    const { events } = v.parse(EnvelopeSchema, payload);
    const images: PushedImage[] = [];
    for (const raw of events) {
      const event = v.safeParse(DistributionEventSchema, raw);
      const image = event.success ? pushedImageOfEvent(event.output) : undefined;
      if (image) images.push(image);
    }
    return { images, ignored: events.length - images.length };
  },
};
