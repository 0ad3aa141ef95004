import * as v from 'valibot';
import { DependencyGroupMemberSchema } from '../../../shared/schemas/container-views';
import { actorOf } from '../approvals/approval-actors';
import type { HubConfig } from '../config/hub-config';
import { HttpError } from '../http/http-error';
import type { RouteGroup } from '../http/route-group';
import type { DependencyGroupUpdates } from '../updates/dependency-group-updates';

/** The dependency-group update route: the container actions switch and the group updates it starts. */
export interface DependencyGroupRoutesDeps {
  config: Pick<HubConfig, 'server'>;
  dependencyGroups: Pick<DependencyGroupUpdates, 'start'>;
}

/** Dependency groups (docs/updates.md): a container and everything that depends on it, updated in waves. */
export function registerDependencyGroupRoutes(api: RouteGroup, deps: DependencyGroupRoutesDeps): void {
  api.add(
    {
      method: 'post',
      path: '/dependency-groups/:rootId/update',
      access: 'containers:update',
      tag: 'containers',
      summary:
        'Update a container and every container that depends on it (dd.depends_on, compose depends_on), wave by wave: a wave starts once every update of the one before has succeeded, and a failure stops the group',
      confirm: 'dependency-group-update',
      response: v.object({
        message: v.string(),
        batchId: v.string(),
        rootId: v.string(),
        rootName: v.string(),
        waves: v.number(),
        members: v.array(DependencyGroupMemberSchema),
      }),
      successStatus: 202,
      statuses: {
        400: 'Nothing in the group has an update',
        403: 'Container actions are disabled (DD_SERVER_FEATURE_CONTAINERACTIONS=false)',
        404: 'Unknown container',
        409: 'The dependencies in the group form a cycle (details.containers names them)',
      },
    },
    async (c) => {
      if (!deps.config.server.featureContainerActions) {
        throw new HttpError(403, 'Container actions are disabled (DD_SERVER_FEATURE_CONTAINERACTIONS=false)', {
          feature: 'DD_SERVER_FEATURE_CONTAINERACTIONS',
        });
      }
      return c.json(await deps.dependencyGroups.start(c.req.param('rootId') ?? '', actorOf(c.get('principal'))), 202);
    },
  );
}
