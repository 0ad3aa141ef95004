import * as v from 'valibot';
import { type PushedImage, pushedImage, pushedImageFromUrl, type RegistryEventFormat } from './pushed-image';

/**
 * GitHub's package events for the container registry: the `package` webhook event (`{action:
 * 'published', package: {...}}`) and the older `registry_package` one (the same object under
 * `registry_package`). `package_version.package_url` is `ghcr.io/Owner/app:tag`; the tag is also
 * in `container_metadata.tag.name` (empty for an untagged push). npm, Maven and other package
 * types arrive on the same event and are not images.
 */
const PackageSchema = v.looseObject({
  name: v.optional(v.string()),
  package_type: v.optional(v.string()),
  ecosystem: v.optional(v.string()),
  owner: v.optional(v.looseObject({ login: v.optional(v.string()) })),
  package_version: v.optional(
    v.looseObject({
      package_url: v.optional(v.string()),
      container_metadata: v.optional(
        v.nullable(
          v.looseObject({
            tag: v.optional(v.looseObject({ name: v.optional(v.string()), digest: v.optional(v.string()) })),
          }),
        ),
      ),
    }),
  ),
});

const GhcrPayloadSchema = v.pipe(
  v.looseObject({
    action: v.string(),
    package: v.optional(PackageSchema),
    registry_package: v.optional(PackageSchema),
  }),
  v.check((payload) => payload.package !== undefined || payload.registry_package !== undefined),
);

const GHCR = 'ghcr.io';
const CONTAINER_TYPES = new Set(['container', 'docker']);
const PUBLISHED = new Set(['published', 'updated']);

function isContainer(pkg: v.InferOutput<typeof PackageSchema>): boolean {
  const kinds = [pkg.package_type, pkg.ecosystem].map((kind) => kind?.toLowerCase());
  return (
    kinds.some((kind) => kind !== undefined && CONTAINER_TYPES.has(kind)) ||
    /^(https?:\/\/)?ghcr\.io\//i.test(pkg.package_version?.package_url ?? '')
  );
}

export const ghcrFormat: RegistryEventFormat = {
  name: 'ghcr',
  matches: (payload) => v.is(GhcrPayloadSchema, payload),
  parse(payload) {
    const parsed = v.parse(GhcrPayloadSchema, payload);
    const pkg = parsed.package ?? parsed.registry_package;
    if (!pkg || !PUBLISHED.has(parsed.action) || !isContainer(pkg)) return { images: [], ignored: 1 };
    const tagged = pkg.package_version?.container_metadata?.tag;
    const tag = tagged?.name || undefined;
    const fallbackName = pkg.owner?.login && pkg.name ? `${pkg.owner.login}/${pkg.name}` : undefined;
    const image: PushedImage | undefined =
      pushedImageFromUrl(pkg.package_version?.package_url, tag, tagged?.digest) ??
      pushedImage(GHCR, fallbackName, tag, tagged?.digest);
    return image ? { images: [image], ignored: 0 } : { images: [], ignored: 1 };
  },
};
