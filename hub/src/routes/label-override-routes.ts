import type { RouteGroup } from '../http/route-group';
import { registerContainerLabelOverrideRoutes } from './container-label-override-routes';
import { registerGlobalLabelOverrideRoutes } from './global-label-override-routes';
import { createLabelOverrideChanges, type LabelOverrideRoutesDeps } from './label-override-changes';

export type { LabelOverrideRoutesDeps } from './label-override-changes';

/**
 * The label-override routes (docs/label-overrides.md): per container, kept by identity, and global
 * by selector. A change takes effect at once: the containers it touches are re-read from their
 * labels and overrides, announced, and checked against their registry when they are watched.
 */
export function registerLabelOverrideRoutes(api: RouteGroup, deps: LabelOverrideRoutesDeps): void {
  const changes = createLabelOverrideChanges(deps);
  // The per-container routes first: GET /label-overrides/containers is matched before /label-overrides/:overrideId.
  registerContainerLabelOverrideRoutes(api, deps, changes);
  registerGlobalLabelOverrideRoutes(api, deps, changes);
}
