import * as v from 'valibot';
import type { DockerContainerDetails, DockerImageDetails } from '../../../shared/docker/docker-host';
import { ContainerDetailsSchema, ImageDetailsSchema } from '../../../shared/edge/docker-schemas';

/**
 * Docker data checked against the protocol's schemas before it is sent: the hub closes the socket
 * on any frame that fails them, so one odd container (a 2 kB image reference) would otherwise make
 * every sync fail and the agent reconnect forever. What does not fit is left out and reported.
 */
export function fitsContainer(container: DockerContainerDetails): boolean {
  return v.is(ContainerDetailsSchema, container);
}

export function fitsImage(image: DockerImageDetails): boolean {
  return v.is(ImageDetailsSchema, image);
}

/** The protocol's text fields hold at most 256 characters (error messages included). */
export function shortText(text: string, max = 256): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
