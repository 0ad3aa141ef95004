import { canPullImages, type RegistryPullAuth } from '../../../shared/docker/docker-host';
import type { Container } from '../../../shared/schemas/container';
import { type ContainerHosts, watcherOf } from '../routes/container-target';
import { currentReference } from '../updates/update-target';
import type { ImageSbom } from './sbom-model';
import { type SbomService, SbomUnavailableError } from './sbom-service';
import { type SbomSource, scanTarget } from './security-service';

export interface ContainerSbomSourceDeps {
  hosts: ContainerHosts;
  sbom: SbomService;
  /** The registry credentials a pull of this reference sends (the update path's own). */
  pullAuth: (reference: string) => Promise<RegistryPullAuth | undefined>;
}

/**
 * What the scanner reads (docs/security-scanning.md): the running image from the container's own
 * Docker host, and the update candidate pulled on that host first, as the update itself would pull
 * it (the generator reads images through the host, never from the registry directly). An edge
 * agent's host pulls and exports through the edge protocol (`image.pull`, `image.export`), a
 * listen-mode agent's through its routes (`POST /api/images/pull`, `GET /api/images/{id}/export`);
 * a host that cannot pull has no candidate to read: SbomUnavailableError.
 */
export function containerSbomSource(deps: ContainerSbomSourceDeps): SbomSource {
  return {
    async sbomFor(container: Container, target: 'candidate' | 'current'): Promise<ImageSbom> {
      const host = watcherOf(deps.hosts, container).host;
      if (target === 'current')
        return deps.sbom.sbomOf({ host, imageId: container.image.id, imageRef: currentReference(container) });
      const reference = scanTarget(container).image;
      if (!canPullImages(host))
        throw new SbomUnavailableError(`the host of ${container.name} cannot pull ${reference} to read it`);
      const image = await host.pullImage(reference, await deps.pullAuth(reference));
      return deps.sbom.sbomOf({ host, imageId: image.id, imageRef: reference });
    },
  };
}
