export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const DOCKER_MANIFEST_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';
export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';

/**
 * Sent on every manifest request. Without the OCI types a registry answers 404 for OCI
 * manifests, and without any it may convert a Docker v2 manifest to schema 1 with another digest.
 */
export const MANIFEST_ACCEPT = [OCI_INDEX, DOCKER_MANIFEST_LIST, DOCKER_MANIFEST, OCI_MANIFEST].join(', ');

export function isIndexMediaType(mediaType: string | undefined): boolean {
  return mediaType === OCI_INDEX || mediaType === DOCKER_MANIFEST_LIST;
}

export function isImageManifestMediaType(mediaType: string | undefined): boolean {
  return mediaType === OCI_MANIFEST || mediaType === DOCKER_MANIFEST;
}
