/**
 * What the image route tests on an agent's host (edge-images, listen-agent-updates) check the hub's
 * image list and prune against: the listed image of a reference, and the image on the dockerd itself.
 */
import type Docker from 'dockerode';

/** The listed image tagged `reference`, if any. */
export const imageOf = <T extends { repoTags: string[] }>(all: T[], reference: string): T | undefined =>
  all.find((image) => image.repoTags.includes(reference));

/** The image id of a reference on the dockerd, and whether an image id is still there. */
export function dockerImages(docker: () => Docker) {
  return {
    imageIdOf: async (reference: string) => (await docker().getImage(reference).inspect()).Id,
    imageExists: (id: string) =>
      docker()
        .getImage(id)
        .inspect()
        .then(
          () => true,
          () => false,
        ),
  };
}
