import * as v from 'valibot';
import {
  ReleaseNotesAnswerFields as AnswerFields,
  IntermediateReleaseNotesSchema,
  ReleaseSchema,
} from '../../../shared/schemas/release-notes';
import { HttpError } from '../http/http-error';
import { qText } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';
import { type ReleaseNotesService, updateTarget } from '../release-notes/release-notes-service';
import { parseImageTag, parseSemver } from '../release-notes/release-version';
import type { ContainerStore } from '../store/container-store';
import { findContainer } from './container-target';

/** The release notes routes: the stored containers and the service that reads their forges. */
export interface ReleaseNotesRoutesDeps {
  containers: Pick<ContainerStore, 'get'>;
  releaseNotes: ReleaseNotesService;
}

const SEMVER_TEXT = 'must be a semver version such as 1.2.3 or v1.2.3-rc.1';

/** GET /api/v1/containers/{id}/release-notes and …/intermediate-release-notes (http-interface §4.8, docs/release-notes.md). */
export function registerReleaseNotesRoutes(api: RouteGroup, deps: ReleaseNotesRoutesDeps): void {
  api.add(
    {
      method: 'get',
      path: '/containers/:id/release-notes',
      access: 'read',
      tag: 'containers',
      summary:
        'Release notes of the update target from GitHub or GitLab (version, date, title, Markdown body, URL); why there are none is in status',
      response: v.object({ ...AnswerFields, target: v.nullable(v.string()), release: v.nullable(ReleaseSchema) }),
      statuses: { 404: 'Unknown container' },
    },
    async (c) => {
      const container = findContainer(deps.containers, c.req.param('id') ?? '');
      return c.json(await deps.releaseNotes.notes(container));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/containers/:id/intermediate-release-notes',
      access: 'read',
      tag: 'containers',
      summary: 'Every release after `from` up to `to` (the pending target by default), oldest first; semver only',
      query: {
        from: qText({ maxLength: 128, description: 'Required: the version moved from (semver, `v` optional)' }),
        to: qText({ maxLength: 128, description: 'The version moved to (semver); default: the pending update target' }),
      },
      response: IntermediateReleaseNotesSchema,
      statuses: { 400: '`from` missing, or `from` or `to` not semver', 404: 'Unknown container' },
    },
    async (c, { query }) => {
      const container = findContainer(deps.containers, c.req.param('id') ?? '');
      if (query.from === undefined || query.from === '')
        throw new HttpError(400, 'The query parameter from is required');
      const from = parseSemver(query.from);
      if (!from) throw new HttpError(400, `Invalid query parameter from: ${SEMVER_TEXT}`, { parameter: 'from' });
      let to = query.to === undefined ? undefined : parseSemver(query.to);
      if (query.to !== undefined && !to) {
        throw new HttpError(400, `Invalid query parameter to: ${SEMVER_TEXT}`, { parameter: 'to' });
      }
      if (to === undefined) {
        const target = updateTarget(container);
        to = target === undefined ? undefined : parseImageTag(target);
        if (to === undefined) {
          return c.json({
            containerId: container.id,
            status: target === undefined ? 'no-update' : 'release-not-found',
            message:
              target === undefined
                ? 'No update is pending: give to'
                : `The pending target ${target} is not a semver version: give to`,
            source: null,
            from: query.from,
            to: null,
            releases: [],
          });
        }
      }
      return c.json(await deps.releaseNotes.between(container, from, to));
    },
  );
}
