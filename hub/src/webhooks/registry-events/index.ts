import { acrFormat } from './acr';
import { distributionFormat } from './distribution';
import { dockerHubFormat } from './docker-hub';
import { ghcrFormat } from './ghcr';
import { harborFormat } from './harbor';
import type { ParsedRegistryEvent, RegistryEventFormat } from './pushed-image';
import { quayFormat } from './quay';

export type { ParsedRegistryEvent, PushedImage } from './pushed-image';

/**
 * Every payload format the registry webhook reads, tried in this order. Their shapes do not
 * overlap: an envelope of events, a single event with a target and a request, Docker Hub's
 * push_data, Harbor's type with event_data or data, Quay's updated_tags, GitHub's package.
 */
export const REGISTRY_EVENT_FORMATS: readonly RegistryEventFormat[] = [
  distributionFormat,
  acrFormat,
  dockerHubFormat,
  harborFormat,
  quayFormat,
  ghcrFormat,
];

/** The payload's images and its format's name; undefined when no format recognises it. */
export function parseRegistryEvent(payload: unknown): (ParsedRegistryEvent & { format: string }) | undefined {
  const format = REGISTRY_EVENT_FORMATS.find((candidate) => candidate.matches(payload));
  return format ? { format: format.name, ...format.parse(payload) } : undefined;
}
