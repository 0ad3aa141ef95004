import { DockerNotFoundError } from '../../../shared/docker/docker-host';
import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import { AgentNotConnectedError } from '../agents/edge-docker-host';
import { EdgeRequestError } from '../agents/edge-requests';
import { HttpError } from '../http/http-error';
import { qEnum } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';
import { CYCLONEDX_MEDIA_TYPE, toCycloneDx } from '../security/sbom/cyclonedx-document';
import { SPDX_MEDIA_TYPE, toSpdx } from '../security/sbom/spdx-document';
import { type SbomService, SbomUnavailableError } from '../security/sbom-service';
import type { ContainerStore } from '../store/container-store';
import { type ContainerHosts, findContainer, watcherOf } from './container-target';

export const SBOM_FORMATS = ['spdx-json', 'cyclonedx-json'] as const;

export interface ContainerSbomRoutesDeps extends ContainerHosts {
  containers: Pick<ContainerStore, 'get'>;
  sbom: SbomService;
  version: string;
  logger: Logger;
}

/** GET /containers/{id}/sbom (http-interface §4.8): the SBOM of the image the container runs (docs/security.md). */
export function registerContainerSbomRoutes(api: RouteGroup, deps: ContainerSbomRoutesDeps): void {
  const logger = deps.logger.child('security.sbom');
  api.add(
    {
      method: 'get',
      path: '/containers/:id/sbom',
      access: 'read',
      tag: 'security',
      summary: "The SBOM of the container's image: SPDX 2.3 JSON (default) or CycloneDX 1.6 JSON",
      query: { format: qEnum(SBOM_FORMATS, { description: 'Document format; spdx-json when absent' }) },
      responseType: 'application/json',
      statuses: {
        400: 'Unknown format',
        404: 'Unknown container, or its image is gone from Docker',
        500: 'The image could not be read (a corrupted layer, an unsupported layer compression)',
        503: 'Its host cannot export images (an agent that predates image.export), or its watcher or agent is not available or busy',
      },
    },
    async (c, { query }) => {
      const container = findContainer(deps.containers, c.req.param('id') ?? '');
      const watcher = watcherOf(deps, container);
      let sbom: Awaited<ReturnType<SbomService['sbomOf']>>;
      try {
        sbom = await deps.sbom.sbomOf({
          host: watcher.host,
          imageId: container.image.id,
          imageRef: `${container.image.name}:${container.image.tag.value}`,
        });
      } catch (error) {
        // An agent that predates image.export answers `unsupported`: its host cannot export, as above.
        if (
          error instanceof SbomUnavailableError ||
          (error instanceof EdgeRequestError && error.code === 'unsupported')
        ) {
          throw new HttpError(503, `No SBOM for ${container.name}: ${error.message}`, {
            reason: 'sbom-unsupported',
            ...(container.agent !== undefined ? { agent: container.agent } : {}),
          });
        }
        if (error instanceof DockerNotFoundError) {
          throw new HttpError(404, `The image of ${container.name} no longer exists in Docker`);
        }
        if (error instanceof AgentNotConnectedError || (error instanceof EdgeRequestError && error.code === 'busy')) {
          throw new HttpError(503, `No SBOM for ${container.name} now: ${error.message}`, {
            ...(container.agent !== undefined ? { agent: container.agent } : {}),
          });
        }
        logger.warn('sbom failed', {
          container: container.name,
          image: container.image.id,
          error: errorMessage(error),
        });
        throw new HttpError(500, `The image of ${container.name} could not be read`, { reason: errorMessage(error) });
      }
      const options = { toolVersion: deps.version };
      if (query.format === 'cyclonedx-json') {
        return c.body(JSON.stringify(toCycloneDx(sbom, options)), 200, { 'Content-Type': CYCLONEDX_MEDIA_TYPE });
      }
      return c.body(JSON.stringify(toSpdx(sbom, options)), 200, { 'Content-Type': SPDX_MEDIA_TYPE });
    },
  );
}
