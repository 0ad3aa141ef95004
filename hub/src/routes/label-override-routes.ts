import type { Context } from 'hono';
import * as v from 'valibot';
import { readContainerLabels } from '../../../shared/containers/container-labels';
import { relabelRecord } from '../../../shared/containers/container-record';
import { labelMapProblems } from '../../../shared/containers/label-override-problems';
import { type LabelMap, LabelMapSchema, mergeLabelOverrides } from '../../../shared/containers/label-overrides';
import type { Logger } from '../../../shared/logging/logger';
import { type Container, ContainerSchema } from '../../../shared/schemas/container';
import {
  ContainerLabelOverridesBodySchema,
  ContainerLabelOverridesPatchSchema,
  ContainerLabelOverridesSchema,
  type GlobalLabelOverride,
  GlobalLabelOverrideBodySchema,
  GlobalLabelOverrideSchema,
} from '../../../shared/schemas/label-override';
import { updateBlockers } from '../../../shared/update/snooze-skip';
import { containerIdentity } from '../../../shared/update/update-clock';
import { pendingUpdateOf } from '../../../shared/update/update-kind';
import { assertMayOverrideApprovalLabel } from '../approvals/approval-label-guard';
import { generateKeyId } from '../auth/api-key-credential';
import type { Publish } from '../events/event-bus';
import { HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import type { RouteGroup } from '../http/route-group';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import { type LabelOverrideStore, selectorMatches } from '../store/label-override-store';
import { effectivePolicy } from '../watchers/container-check';
import type { DockerWatcher } from '../watchers/docker-watcher';
import { toPublicContainer } from '../watchers/public-container';
import { type ContainerHosts, errorMessage, findContainer } from './container-target';

export interface LabelOverrideRoutesDeps extends ContainerHosts {
  containers: Pick<ContainerStore, 'all' | 'get' | 'putMany' | 'identityState'>;
  /** DD_APPROVALS_SEPARATE: overriding dd.update.approval needs admin (docs/approvals.md). */
  approvalLabelNeedsAdmin?: boolean | undefined;
  labelOverrides: LabelOverrideStore;
  audit: Pick<AuditStore, 'append'>;
  publish: Publish;
  now: () => number;
  logger: Logger;
}

const identityOf = (container: Container) => containerIdentity(container);

const IdentityOverridesSchema = v.object({
  identity: v.string(),
  labels: LabelMapSchema,
  /** The containers holding this identity now; empty while the container is gone. */
  containerIds: v.array(v.string()),
});

/** A bad value is refused with its key named (400), read by the parsers the labels go through. */
function assertValid(labels: LabelMap): void {
  const problems = labelMapProblems(labels);
  if (problems.length === 0) return;
  const first = problems[0] as string;
  // Values are echoed in the problems (a regex, a reference): clipped, as ids from the URL are.
  throw new HttpError(400, `Invalid label override: ${first.slice(0, 300)}`, {
    label: first.split(/[ :]/, 1)[0],
    problems: problems.map((problem) => problem.slice(0, 300)),
  });
}

const listed = (labels: LabelMap) =>
  Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ')
    .slice(0, 500);

/**
 * The label-override routes (docs/label-overrides.md): per container, kept by identity, and global
 * by selector. A change takes effect at once: the containers it touches are re-read from their
 * labels and overrides, announced, and checked against their registry when they are watched.
 */
export function registerLabelOverrideRoutes(api: RouteGroup, deps: LabelOverrideRoutesDeps): void {
  const { containers, labelOverrides } = deps;
  const assertMayChange = (c: Context<HubEnv>, before: LabelMap | undefined, after: LabelMap) =>
    assertMayOverrideApprovalLabel(deps.approvalLabelNeedsAdmin === true, c.get('principal'), before, after);

  /** One record with its labels re-read under the overrides now in force (nothing stored yet). */
  function relabel(container: Container): Container {
    const identity = identityOf(container);
    const merged = mergeLabelOverrides(container.labels, labelOverrides.resolve(identity, container));
    const labels = readContainerLabels(merged.labels);
    const watchByDefault = deps.fleet.ownerOf(container)?.watchByDefault ?? true;
    const relabelled = relabelRecord(container, labels, merged.sources, watchByDefault);
    const state = containers.identityState(identity);
    const policy = effectivePolicy(labels.labelPolicy, state.policy ?? {});
    const blockers = relabelled.watched
      ? updateBlockers({ policy, update: pendingUpdateOf(relabelled.updateKind), gate: state.gate, now: deps.now() })
      : [];
    const { blockers: _old, ...rest } = relabelled;
    return { ...rest, updatePolicy: policy, ...(blockers.length > 0 && { blockers }) };
  }

  /**
   * Tag rules, lookup image or dd.watch may have changed what the registry has to say: the watched
   * ones are checked now, one observation per watcher, where the host is reachable; elsewhere the
   * next watch cycle does it.
   */
  async function recheck(updated: readonly Container[]): Promise<void> {
    const byWatcher = new Map<DockerWatcher, string[]>();
    for (const container of updated) {
      const watcher = deps.fleet.ownerOf(container);
      const reachable = container.agent === undefined || deps.agents.isConnected(container.agent);
      if (!container.watched || !watcher || !reachable) continue;
      byWatcher.set(watcher, [...(byWatcher.get(watcher) ?? []), container.id]);
    }
    await Promise.all(
      [...byWatcher].map(([watcher, ids]) =>
        watcher.watchContainers(ids).catch((error: unknown) =>
          deps.logger.warn('label override: re-check failed; the next watch cycle applies it', {
            watcher: watcher.id,
            error: errorMessage(error),
          }),
        ),
      ),
    );
  }

  /**
   * The containers selected, re-read, stored in one batch (one transaction on Workers, however many
   * a selector matches) and announced, then re-checked.
   */
  async function reapply(selected: (container: Container) => boolean): Promise<void> {
    const updated = containers.all().filter(selected).map(relabel);
    await containers.putMany(updated);
    for (const container of updated) deps.publish('dd:container-updated', toPublicContainer(container));
    await recheck(updated);
  }

  async function reapplyOne(container: Container): Promise<Container> {
    await reapply((candidate) => candidate.id === container.id);
    return containers.get(container.id) ?? container;
  }

  const findOverride = (id: string) => {
    const override = labelOverrides.global(id);
    if (!override) throw new HttpError(404, `Unknown label override ${id.slice(0, 40)}`);
    return override;
  };

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
      assertValid(body.labels);
      const identity = identityOf(container);
      const had = labelOverrides.ofIdentity(identity);
      assertMayChange(c, had, body.labels);
      await labelOverrides.setOfIdentity(identity, body.labels);
      const updated = await reapplyOne(container);
      if (had || Object.keys(body.labels).length > 0)
        await deps.audit.append({
          action: Object.keys(body.labels).length > 0 ? 'label-override-set' : 'label-override-cleared',
          containerName: container.name,
          status: 'success',
          details: listed(body.labels) || 'all container overrides cleared',
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
      assertValid(next);
      assertMayChange(c, had, next);
      await labelOverrides.setOfIdentity(identity, next);
      const updated = await reapplyOne(container);
      const cleared = (body.unset ?? []).filter((key) => key in had);
      if (Object.keys(body.set ?? {}).length > 0)
        await deps.audit.append({
          action: 'label-override-set',
          containerName: container.name,
          status: 'success',
          details: listed(body.set ?? {}),
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
      assertMayChange(c, had, {});
      await labelOverrides.setOfIdentity(identity, {});
      const updated = await reapplyOne(container);
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
      assertMayChange(c, labels, {});
      await labelOverrides.setOfIdentity(identity, {});
      await reapply((container) => identityOf(container) === identity);
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
      assertValid(body.labels);
      const at = new Date(deps.now()).toISOString();
      const override: GlobalLabelOverride = { id: generateKeyId(), ...body, createdAt: at, updatedAt: at };
      await labelOverrides.putGlobal(override);
      await reapply((container) => selectorMatches(override.selector, container));
      await deps.audit.append({
        action: 'label-override-set',
        status: 'success',
        details: `global ${override.id} ${JSON.stringify(override.selector)}: ${listed(override.labels)}`.slice(0, 500),
      });
      return c.json(override, 201);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/label-overrides/:overrideId',
      access: 'read',
      tag: 'containers',
      summary: 'One global label override',
      response: GlobalLabelOverrideSchema,
      statuses: { 404: 'Unknown override' },
    },
    (c) => c.json(findOverride(c.req.param('overrideId') ?? '')),
  );

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
      assertValid(body.labels);
      const override: GlobalLabelOverride = { ...before, ...body, updatedAt: new Date(deps.now()).toISOString() };
      await labelOverrides.putGlobal(override);
      await reapply(
        (container) => selectorMatches(before.selector, container) || selectorMatches(override.selector, container),
      );
      await deps.audit.append({
        action: 'label-override-set',
        status: 'success',
        details: `global ${override.id} ${JSON.stringify(override.selector)}: ${listed(override.labels)}`.slice(0, 500),
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
      await reapply((container) => selectorMatches(override.selector, container));
      await deps.audit.append({
        action: 'label-override-cleared',
        status: 'success',
        details: `global ${override.id} ${JSON.stringify(override.selector)}`.slice(0, 500),
      });
      return c.json(override);
    },
  );
}
