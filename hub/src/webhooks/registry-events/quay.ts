import * as v from 'valibot';
import { type PushedImage, pushedImage, pushedImageFromUrl, type RegistryEventFormat } from './pushed-image';

/**
 * Quay's "Push to Repository" notification: `{repository: 'ns/app', namespace, name, docker_url:
 * 'quay.io/ns/app', homepage, updated_tags: ['latest', '1.2']}`. Older Quay versions sent
 * updated_tags as an object of tag → image id; both are read. docker_url names the host, which on
 * a self-hosted Quay is not quay.io.
 */
const QuayPayloadSchema = v.looseObject({
  repository: v.string(),
  docker_url: v.optional(v.string()),
  updated_tags: v.union([v.array(v.string()), v.record(v.string(), v.unknown())]),
});

const QUAY = 'quay.io';

export const quayFormat: RegistryEventFormat = {
  name: 'quay',
  matches: (payload) => v.is(QuayPayloadSchema, payload),
  parse(payload) {
    const { repository, docker_url, updated_tags } = v.parse(QuayPayloadSchema, payload);
    const tags = Array.isArray(updated_tags) ? updated_tags : Object.keys(updated_tags);
    const image = (tag: string | undefined): PushedImage | undefined =>
      (docker_url ? pushedImageFromUrl(docker_url, tag) : undefined) ?? pushedImage(QUAY, repository, tag);
    const images = (tags.length > 0 ? tags : [undefined])
      .map(image)
      .filter((found): found is PushedImage => found !== undefined);
    return { images, ignored: images.length === 0 ? 1 : 0 };
  },
};
