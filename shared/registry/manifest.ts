import * as v from 'valibot';

const DigestSchema = v.pipe(v.string(), v.regex(/^sha256:[a-f0-9]{64}$/, 'must be a sha256 digest'));

export const PlatformSchema = v.object({
  os: v.string(),
  architecture: v.string(),
  variant: v.optional(v.string()),
});
export type Platform = v.InferOutput<typeof PlatformSchema>;

const DescriptorSchema = v.object({
  mediaType: v.optional(v.string()),
  digest: DigestSchema,
  size: v.optional(v.number()),
  platform: v.optional(PlatformSchema),
  annotations: v.optional(v.record(v.string(), v.string())),
});
export type Descriptor = v.InferOutput<typeof DescriptorSchema>;

/** OCI image index or Docker manifest list. */
export const ImageIndexSchema = v.object({
  schemaVersion: v.literal(2),
  mediaType: v.optional(v.string()),
  manifests: v.array(DescriptorSchema),
});
export type ImageIndex = v.InferOutput<typeof ImageIndexSchema>;

/** OCI image manifest or Docker v2 manifest. */
export const ImageManifestSchema = v.object({
  schemaVersion: v.literal(2),
  mediaType: v.optional(v.string()),
  config: DescriptorSchema,
  layers: v.array(DescriptorSchema),
});
export type ImageManifest = v.InferOutput<typeof ImageManifestSchema>;

/** The image config blob: only what the monitor reads. */
export const ImageConfigSchema = v.object({
  created: v.optional(v.string()),
  os: v.optional(v.string()),
  architecture: v.optional(v.string()),
  variant: v.optional(v.string()),
});
export type ImageConfig = v.InferOutput<typeof ImageConfigSchema>;

export async function sha256Digest(bytes: ArrayBuffer | Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as ArrayBuffer));
  let hex = '';
  for (const byte of hash) hex += byte.toString(16).padStart(2, '0');
  return `sha256:${hex}`;
}

/** buildx puts provenance and SBOM attestations beside the real images of an index. */
export function isAttestation(descriptor: Descriptor): boolean {
  return (
    descriptor.annotations?.['vnd.docker.reference.type'] === 'attestation-manifest' ||
    (descriptor.platform?.os === 'unknown' && descriptor.platform.architecture === 'unknown')
  );
}

/** arm64 images often omit their `v8` variant; both spellings mean the same platform. */
function normalizedVariant(platform: Platform): string | undefined {
  if (platform.architecture === 'arm64' && (platform.variant === undefined || platform.variant === 'v8'))
    return undefined;
  return platform.variant;
}

/**
 * The index entry for a platform: os and architecture must match; an exact variant is preferred,
 * then an entry without one. Attestations never match.
 */
export function selectPlatform(index: ImageIndex, wanted: Platform): Descriptor | undefined {
  const candidates = index.manifests.filter(
    (entry) =>
      !isAttestation(entry) &&
      (entry.platform === undefined ||
        (entry.platform.os === wanted.os && entry.platform.architecture === wanted.architecture)),
  );
  const variant = normalizedVariant(wanted);
  return (
    candidates.find((entry) => entry.platform !== undefined && normalizedVariant(entry.platform) === variant) ??
    candidates.find((entry) => entry.platform !== undefined && entry.platform.variant === undefined) ??
    candidates.find((entry) => entry.platform === undefined)
  );
}
