import * as v from 'valibot';
import { type PushedImage, pushedImage, pushedImageFromUrl, type RegistryEventFormat } from './pushed-image';

/**
 * Harbor project webhooks, in either payload format: Default (`{type: 'PUSH_ARTIFACT', event_data:
 * {resources: [{tag, digest, resource_url: 'harbor.example.com/library/nginx:1.27'}], repository:
 * {repo_full_name: 'library/nginx'}}}`) and CloudEvents (`{type: 'harbor.artifact.pushed', data:
 * {...the same}}`). Pulls, deletes, scans and quota events are not pushes.
 */
const DataSchema = v.looseObject({
  resources: v.optional(
    v.array(
      v.looseObject({
        tag: v.optional(v.string()),
        digest: v.optional(v.string()),
        resource_url: v.optional(v.string()),
      }),
    ),
  ),
  repository: v.optional(
    v.looseObject({
      repo_full_name: v.optional(v.string()),
      namespace: v.optional(v.string()),
      name: v.optional(v.string()),
    }),
  ),
});

const HarborPayloadSchema = v.pipe(
  v.looseObject({ type: v.string(), event_data: v.optional(DataSchema), data: v.optional(DataSchema) }),
  v.check((payload) => payload.event_data !== undefined || payload.data !== undefined),
);

const PUSH_TYPES = new Set(['PUSH_ARTIFACT', 'harbor.artifact.pushed']);

export const harborFormat: RegistryEventFormat = {
  name: 'harbor',
  matches: (payload) => v.is(HarborPayloadSchema, payload),
  parse(payload) {
    const parsed = v.parse(HarborPayloadSchema, payload);
    const data = parsed.event_data ?? parsed.data;
    if (!data || !PUSH_TYPES.has(parsed.type)) return { images: [], ignored: 1 };
    const repository = data.repository?.repo_full_name ?? data.repository?.name;
    const images: PushedImage[] = [];
    for (const resource of data.resources ?? []) {
      // resource_url carries the host; without one the repository alone is matched.
      const image =
        pushedImageFromUrl(resource.resource_url, resource.tag, resource.digest) ??
        pushedImage(undefined, repository, resource.tag);
      if (image) images.push(image);
    }
    return { images, ignored: images.length === 0 ? 1 : 0 };
  },
};
