import * as v from 'valibot';
import {
  type GlobalLabelOverride,
  GlobalLabelOverrideBodySchema,
  GlobalLabelOverrideSchema,
} from '../../../shared/schemas/label-override';
import { generateKeyId } from '../auth/api-key-credential';
import { HttpError } from '../http/http-error';
import { addReadOneRoute } from '../http/read-one-route';
import type { RouteGroup } from '../http/route-group';
import { selectorMatches } from '../store/label-override-store';
import {
  assertValidOverride,
  type LabelOverrideChanges,
  type LabelOverrideRoutesDeps,
  listedLabels,
} from './label-override-changes';

/**
 * Global label overrides (docs/label-overrides.md "Global"): these dd.* labels on every container
 * a selector matches, applied oldest first; admins change them.
 */
export function registerGlobalLabelOverrideRoutes(
  api: RouteGroup,
  deps: LabelOverrideRoutesDeps,
  changes: LabelOverrideChanges,
): void {
  const { labelOverrides } = deps;
  const findOverride = (id: string) => {
    const override = labelOverrides.global(id);
    if (!override) throw new HttpError(404, `Unknown label override ${id.slice(0, 40)}`);
    return override;
  };

  api.add(
    {
      method: 'get',
      path: '/label-overrides',
      access: 'read',
      tag: 'containers',
      summary: 'Global label overrides, in the order they apply (oldest first; a later one wins on the same key)',
      response: v.object({ data: v.array(GlobalLabelOverrideSchema), total: v.number() }),
    },
    (c) => {
      const data = labelOverrides.globals();
      return c.json({ data, total: data.length });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/label-overrides',
      access: 'admin',
      tag: 'containers',
      summary: 'Create a global label override: these dd.* labels on every container its selector matches',
      body: GlobalLabelOverrideBodySchema,
      response: GlobalLabelOverrideSchema,
      successStatus: 201,
      statuses: { 400: 'Unknown dd.* label, invalid value (the key is named) or selector' },
    },
    async (c, { body }) => {
      assertValidOverride(body.labels);
      const at = new Date(deps.now()).toISOString();
      const override: GlobalLabelOverride = { id: generateKeyId(), ...body, createdAt: at, updatedAt: at };
      await labelOverrides.putGlobal(override);
      await changes.reapply((container) => selectorMatches(override.selector, container));
      await deps.audit.append({
        action: 'label-override-set',
        status: 'success',
        details: `global ${override.id} ${JSON.stringify(override.selector)}: ${listedLabels(override.labels)}`.slice(
          0,
          500,
        ),
      });
      return c.json(override, 201);
    },
  );

  addReadOneRoute(api, {
    path: '/label-overrides/:overrideId',
    tag: 'containers',
    summary: 'One global label override',
    response: GlobalLabelOverrideSchema,
    notFound: 'Unknown override',
    find: findOverride,
  });

  api.add(
    {
      method: 'put',
      path: '/label-overrides/:overrideId',
      access: 'admin',
      tag: 'containers',
      summary:
        'Replace a global label override (selector and labels); containers it matched or matches now are re-read',
      body: GlobalLabelOverrideBodySchema,
      response: GlobalLabelOverrideSchema,
      statuses: { 400: 'Unknown dd.* label, invalid value (the key is named) or selector', 404: 'Unknown override' },
    },
    async (c, { body }) => {
      const before = findOverride(c.req.param('overrideId') ?? '');
      assertValidOverride(body.labels);
      const override: GlobalLabelOverride = { ...before, ...body, updatedAt: new Date(deps.now()).toISOString() };
      await labelOverrides.putGlobal(override);
      await changes.reapply(
        (container) => selectorMatches(before.selector, container) || selectorMatches(override.selector, container),
      );
      await deps.audit.append({
        action: 'label-override-set',
        status: 'success',
        details: `global ${override.id} ${JSON.stringify(override.selector)}: ${listedLabels(override.labels)}`.slice(
          0,
          500,
        ),
      });
      return c.json(override);
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/label-overrides/:overrideId',
      access: 'admin',
      tag: 'containers',
      summary: 'Delete a global label override; the containers it matched are re-read without it',
      response: GlobalLabelOverrideSchema,
      statuses: { 404: 'Unknown override' },
    },
    async (c) => {
      const override = findOverride(c.req.param('overrideId') ?? '');
      await labelOverrides.removeGlobal(override.id);
      await changes.reapply((container) => selectorMatches(override.selector, container));
      await deps.audit.append({
        action: 'label-override-cleared',
        status: 'success',
        details: `global ${override.id} ${JSON.stringify(override.selector)}`.slice(0, 500),
      });
      return c.json(override);
    },
  );
}
