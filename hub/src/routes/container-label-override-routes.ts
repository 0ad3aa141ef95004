import * as v from 'valibot';
import { type LabelMap, LabelMapSchema } from '../../../shared/containers/label-overrides';
import { ContainerSchema } from '../../../shared/schemas/container';
import {
  ContainerLabelOverridesBodySchema,
  ContainerLabelOverridesPatchSchema,
  ContainerLabelOverridesSchema,
} from '../../../shared/schemas/label-override';
import { HttpError } from '../http/http-error';
import type { RouteGroup } from '../http/route-group';
import { toPublicContainer } from '../watchers/public-container';
import { findContainer } from './container-target';
import {
  assertValidOverride,
  identityOf,
  type LabelOverrideChanges,
  type LabelOverrideRoutesDeps,
  listedLabels,
} from './label-override-changes';

const IdentityOverridesSchema = v.object({
  identity: v.string(),
  labels: LabelMapSchema,
  /** The containers holding this identity now; empty while the container is gone. */
  containerIds: v.array(v.string()),
});

/**
 * Per-container label overrides (docs/label-overrides.md "Per container"): kept by identity, so
 * they outlive a re-creation of the container; listed and cleared by identity too.
 */
export function registerContainerLabelOverrideRoutes(
  api: RouteGroup,
  deps: LabelOverrideRoutesDeps,
  changes: LabelOverrideChanges,
): void {
  const { containers, labelOverrides } = deps;

  api.add(
    {
      method: 'get',
      path: '/containers/:id/label-overrides',
      access: 'read',
      tag: 'containers',
      summary: "This container's label overrides (kept by identity) and the global overrides that match it",
      response: ContainerLabelOverridesSchema,
      statuses: { 404: 'Unknown container' },
    },
    (c) => {
      const container = findContainer(containers, c.req.param('id') ?? '');
      const identity = identityOf(container);
      const resolved = labelOverrides.resolve(identity, container);
      return c.json({
        containerId: container.id,
        identity,
        labels: resolved.container ?? {},
        globalOverrides: resolved.globalIds,
      });
    },
  );

  api.add(
    {
      method: 'put',
      path: '/containers/:id/label-overrides',
      access: 'containers:update',
      tag: 'containers',
      summary:
        "Set this container's label overrides: the whole map, replacing the one stored; kept across re-creation; answers the container with its effective labels",
      body: ContainerLabelOverridesBodySchema,
      response: ContainerSchema,
      statuses: {
        400: 'Unknown dd.* label or invalid value (the key is named)',
        403: 'Changes dd.update.approval without admin while DD_APPROVALS_SEPARATE is on',
        404: 'Unknown container',
      },
    },
    async (c, { body }) => {
      const container = findContainer(containers, c.req.param('id') ?? '');
      assertValidOverride(body.labels);
      const identity = identityOf(container);
      const had = labelOverrides.ofIdentity(identity);
      changes.assertMayChange(c, had, body.labels);
      await labelOverrides.setOfIdentity(identity, body.labels);
      const updated = await changes.reapplyOne(container);
      if (had || Object.keys(body.labels).length > 0)
        await deps.audit.append({
          action: Object.keys(body.labels).length > 0 ? 'label-override-set' : 'label-override-cleared',
          containerName: container.name,
          status: 'success',
          details: listedLabels(body.labels) || 'all container overrides cleared',
        });
      return c.json(toPublicContainer(updated));
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/containers/:id/label-overrides',
      access: 'containers:update',
      tag: 'containers',
      summary:
        "Change some of this container's label overrides: `set` keys, `unset` keys, the others kept; answers the container with its effective labels",
      body: ContainerLabelOverridesPatchSchema,
      response: ContainerSchema,
      statuses: {
        400: 'Unknown dd.* label, invalid value (the key is named), or nothing to change',
        403: 'Changes dd.update.approval without admin while DD_APPROVALS_SEPARATE is on',
        404: 'Unknown container',
      },
    },
    async (c, { body }) => {
      const container = findContainer(containers, c.req.param('id') ?? '');
      const identity = identityOf(container);
      const had = labelOverrides.ofIdentity(identity) ?? {};
      const next: LabelMap = { ...had, ...body.set };
      for (const key of body.unset ?? []) delete next[key];
      assertValidOverride(next);
      changes.assertMayChange(c, had, next);
      await labelOverrides.setOfIdentity(identity, next);
      const updated = await changes.reapplyOne(container);
      const cleared = (body.unset ?? []).filter((key) => key in had);
      if (Object.keys(body.set ?? {}).length > 0)
        await deps.audit.append({
          action: 'label-override-set',
          containerName: container.name,
          status: 'success',
          details: listedLabels(body.set ?? {}),
        });
      if (cleared.length > 0)
        await deps.audit.append({
          action: 'label-override-cleared',
          containerName: container.name,
          status: 'success',
          details: `cleared ${cleared.join(', ')}`.slice(0, 500),
        });
      return c.json(toPublicContainer(updated));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/containers/:id/label-overrides',
      access: 'containers:update',
      tag: 'containers',
      summary: "Clear this container's label overrides: its labels (and the global overrides) apply again",
      response: ContainerSchema,
      statuses: {
        403: 'Changes dd.update.approval without admin while DD_APPROVALS_SEPARATE is on',
        404: 'Unknown container',
      },
    },
    async (c) => {
      const container = findContainer(containers, c.req.param('id') ?? '');
      const identity = identityOf(container);
      const had = labelOverrides.ofIdentity(identity);
      changes.assertMayChange(c, had, {});
      await labelOverrides.setOfIdentity(identity, {});
      const updated = await changes.reapplyOne(container);
      if (had)
        await deps.audit.append({
          action: 'label-override-cleared',
          containerName: container.name,
          status: 'success',
          details: `cleared ${Object.keys(had).join(', ')}`.slice(0, 500),
        });
      return c.json(toPublicContainer(updated));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/label-overrides/containers',
      access: 'read',
      tag: 'containers',
      summary:
        'Every per-container override by identity, with the ids of the containers that hold that identity now (none: the container is gone, its overrides wait for a container of that name)',
      response: v.object({ data: v.array(IdentityOverridesSchema), total: v.number() }),
    },
    (c) => {
      const holders = new Map<string, string[]>();
      for (const container of containers.all()) {
        const identity = identityOf(container);
        holders.set(identity, [...(holders.get(identity) ?? []), container.id]);
      }
      const data = labelOverrides
        .byIdentity()
        .map(([identity, labels]) => ({ identity, labels, containerIds: holders.get(identity) ?? [] }));
      return c.json({ data, total: data.length });
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/label-overrides/containers/:identity',
      access: 'containers:update',
      tag: 'containers',
      summary:
        "Clear the overrides kept under an identity (`agent::watcher::name`, URL-encoded), a gone container's too",
      response: IdentityOverridesSchema,
      statuses: {
        403: 'Changes dd.update.approval without admin while DD_APPROVALS_SEPARATE is on',
        404: 'No overrides under this identity',
      },
    },
    async (c) => {
      const identity = c.req.param('identity') ?? '';
      const labels = labelOverrides.ofIdentity(identity);
      if (!labels) throw new HttpError(404, `No label overrides under ${identity.slice(0, 200)}`);
      changes.assertMayChange(c, labels, {});
      await labelOverrides.setOfIdentity(identity, {});
      await changes.reapply((container) => identityOf(container) === identity);
      await deps.audit.append({
        action: 'label-override-cleared',
        containerName: identity.split('::').slice(2).join('::'),
        status: 'success',
        details: `cleared ${Object.keys(labels).join(', ')}`.slice(0, 500),
      });
      const containerIds = containers
        .all()
        .filter((container) => identityOf(container) === identity)
        .map((container) => container.id);
      return c.json({ identity, labels, containerIds });
    },
  );
}
