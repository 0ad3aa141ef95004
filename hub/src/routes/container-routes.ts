import * as v from 'valibot';
import {
  CONTAINER_KIND_FILTERS,
  CONTAINER_SORTS,
  CONTAINER_STATUS_FILTERS,
} from '../../../shared/containers/container-query';
import { type Container, ContainerSchema, MATURITY_LEVELS } from '../../../shared/schemas/container';
import { UpdatePolicyActionSchema } from '../../../shared/schemas/update-policy';
import { WATCHER_TYPES } from '../../../shared/sources/watcher-type-names';
import type { FleetLookups } from '../checks/fleet-lookups';
import type { Publish } from '../events/event-bus';
import { HttpError } from '../http/http-error';
import { qBool, qEnum, qInt, qText } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';
import type { SecurityService } from '../security/security-service';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import { changeUpdatePolicy, skipListsShrank } from '../updates/update-policy-change';
import { toPublicContainer } from '../watchers/public-container';
import { containerGroups } from './container-groups';
import { type ContainerHosts, findContainer, watcherOf } from './container-target';
import { containerSummary, recentStatus } from './container-views';
import {
  containerSecurity,
  fleetVulnerabilities,
  scanLookups,
  securityIssues,
  vulnerabilitiesView,
} from './security-views';
import { describeTriggersOfContainer, type TriggersOfContainerDeps } from './trigger-routes';

const Envelope = v.object({
  data: v.array(ContainerSchema),
  total: v.number(),
  limit: v.number(),
  offset: v.number(),
  hasMore: v.boolean(),
});

/** The container routes: the records and their policies, the watchers that check them, and what changes are told to. */
export interface ContainerRoutesDeps extends ContainerHosts, TriggersOfContainerDeps {
  containers: Pick<ContainerStore, 'all' | 'get' | 'query' | 'put' | 'identityState' | 'setIdentityState'>;
  audit: Pick<AuditStore, 'recent' | 'append'>;
  /** The fleet's registry lookups, begun afresh by "watch now"; absent without registry providers. */
  registries: { lookups: Pick<FleetLookups, 'beginCycle'> } | undefined;
  now: () => number;
  publish: Publish;
  /** The latest scans and the database's state (docs/security-scanning.md). */
  security: Pick<SecurityService, 'scans' | 'databaseStatus' | 'configured'>;
}

export function registerContainerRoutes(api: RouteGroup, deps: ContainerRoutesDeps): void {
  const { containers } = deps;
  const find = (id: string) => findContainer(containers, id);
  const { scanOf, runningOf } = scanLookups(deps.security.scans);
  /** A container as served: redacted, with its `security` field (the findings only when asked for). */
  const shown = (container: Container, includeVulnerabilities = false) => ({
    ...toPublicContainer(container),
    security: containerSecurity(scanOf(container), includeVulnerabilities),
  });
  /**
   * A record's served JSON, each variant (with or without findings) kept while the record and its
   * scan are the same objects: both are replaced, never changed, when they change. A page of 200 is
   * then 200 strings joined; redacting and serializing each again held the list's p99 at 13 ms with
   * 200 records stored and 20 ms with 200,000 (docs/benchmarks.md "Container list").
   */
  const servedJson = new WeakMap<Container, { scan: unknown; plain?: string; withFindings?: string }>();
  const jsonOf = (container: Container, includeVulnerabilities: boolean): string => {
    const scan = scanOf(container);
    const previous = servedJson.get(container);
    const kept = previous !== undefined && previous.scan === scan ? previous : { scan };
    if (kept !== previous) servedJson.set(container, kept);
    const variant = includeVulnerabilities ? 'withFindings' : 'plain';
    kept[variant] ??= JSON.stringify(shown(container, includeVulnerabilities));
    return kept[variant];
  };
  /** A page as the Envelope schema says, with the records' kept JSON spliced in as `data`. */
  const envelopeBody = (data: Container[], total: number, limit: number, offset: number, withFindings = false) => {
    const meta = JSON.stringify({ total, limit, offset, hasMore: offset + data.length < total });
    return `{"data":[${data.map((container) => jsonOf(container, withFindings)).join(',')}],${meta.slice(1)}`;
  };
  const json = { 'Content-Type': 'application/json' };

  api.add(
    {
      method: 'get',
      path: '/containers',
      access: 'read',
      tag: 'containers',
      summary: 'Containers, filtered, sorted and paged',
      query: {
        limit: qInt({ min: 0, max: 200, default: 0, description: '0 means unbounded' }),
        offset: qInt({ min: 0, max: 10_000_000, default: 0 }),
        includeVulnerabilities: qBool({ default: false }),
        sort: qEnum(CONTAINER_SORTS),
        order: qEnum(['asc', 'desc']),
        status: qEnum(CONTAINER_STATUS_FILTERS),
        kind: qEnum(CONTAINER_KIND_FILTERS),
        watcher: qText({ maxLength: 128, description: 'Watcher name' }),
        watcherType: qEnum(WATCHER_TYPES, {
          description: "Only the records of this watcher type (docs/sources.md); docker's carry no watcherType",
        }),
        agent: qText({ maxLength: 63, description: "An edge agent's name: only its containers" }),
        maturity: qEnum(MATURITY_LEVELS),
        containerIds: qText({
          maxLength: 20_000,
          pattern: /^[A-Za-z0-9_.,-]*$/,
          patternText: 'must be comma-separated container ids',
        }),
      },
      response: Envelope,
      statuses: { 400: 'Invalid query parameter' },
    },
    (c, { query }) => {
      const { data, total } = containers.query(query);
      return c.body(envelopeBody(data, total, query.limit, query.offset, query.includeVulnerabilities), 200, json);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/containers/summary',
      access: 'read',
      tag: 'containers',
      summary: 'Counts of containers, updates and maturity',
    },
    (c) => {
      const all = containers.all();
      return c.json({ ...containerSummary(all), security: { issues: securityIssues(all, scanOf, runningOf) } });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/containers/groups',
      access: 'read',
      tag: 'containers',
      summary:
        'Groups of containers: by Podman pod per host, by the dd.group label, else by compose project per host; each member with what it depends on and what depends on it',
    },
    (c) => {
      const groups = containerGroups(containers.all());
      return c.json({ data: groups, total: groups.length });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/containers/recent-status',
      access: 'read',
      tag: 'containers',
      summary: 'Recent update status by name and identity, from the last 100 audit entries',
    },
    (c) => c.json(recentStatus(deps.audit.recent(100), containers.all())),
  );

  api.add(
    {
      method: 'post',
      path: '/containers/watch',
      access: 'containers:watch',
      tag: 'containers',
      summary: 'Watch every container now',
      response: Envelope,
    },
    async (c) => {
      // One fresh lookup cycle for the whole fleet, which every watcher joins: hosts sharing an image share its lookups.
      deps.registries?.lookups.beginCycle();
      await Promise.all(deps.fleet.all().map((watcher) => watcher.watch({ joinCycle: true })));
      const all = containers.all();
      return c.body(envelopeBody(all, all.length, 0, 0), 200, json);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/containers/security/vulnerabilities',
      access: 'read',
      tag: 'security',
      summary:
        'Vulnerabilities by running image: total and scanned container counts, the latest scan, each image with its container ids, findings and the summary of its update candidate; the state of the OSV database or of the Trivy or Grype tool',
    },
    async (c) => c.json(await fleetVulnerabilities(containers.all(), deps.security)),
  );

  api.add(
    {
      method: 'get',
      path: '/containers/:id',
      access: 'read',
      tag: 'containers',
      summary: 'One container',
      response: ContainerSchema,
      statuses: { 404: 'Unknown container' },
    },
    (c) => c.json(shown(find(c.req.param('id') ?? ''))),
  );

  api.add(
    {
      method: 'post',
      path: '/containers/:id/watch',
      access: 'containers:watch',
      tag: 'containers',
      summary: 'Watch one container now',
      response: ContainerSchema,
      statuses: { 404: 'Unknown container', 503: 'Its watcher is not available' },
    },
    async (c) => {
      const container = find(c.req.param('id') ?? '');
      const watcher = watcherOf(deps, container);
      // "Watch now" means asking the registry now, not reusing the last cycle's answers.
      deps.registries?.lookups.beginCycle();
      const { container: updated, errors } = await watcher.watchContainer(container.id);
      const unreachable = errors.find((error) => error.phase !== 'check');
      if (unreachable)
        throw new HttpError(
          503,
          `Docker did not answer for ${container.watcher}: ${unreachable.message.slice(0, 300)}`,
        );
      if (!updated) throw new HttpError(404, 'The container is gone');
      return c.json(shown(updated));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/containers/:id/triggers',
      access: 'read',
      tag: 'containers',
      summary:
        'Triggers that apply to this container, configuration masked: first the Docker action triggers that can update it (its watcher, its dd.action.* labels), then the notification triggers its dd.notification.* labels route to it',
    },
    (c) => {
      const data = describeTriggersOfContainer(deps, find(c.req.param('id') ?? ''));
      return c.json({ data, total: data.length });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/containers/:id/vulnerabilities',
      access: 'read',
      tag: 'security',
      summary: 'Latest persisted scan of this container, or status not-scanned with an empty result set',
      statuses: { 404: 'Unknown container' },
    },
    (c) => {
      const container = find(c.req.param('id') ?? '');
      return c.json(vulnerabilitiesView(container, scanOf(container), runningOf(container)));
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/containers/:id/update-policy',
      access: 'containers:update',
      tag: 'containers',
      summary: 'Change the update policy: skips, snooze, maturity gate',
      body: UpdatePolicyActionSchema,
      response: ContainerSchema,
      statuses: { 400: 'Invalid action or values', 404: 'Unknown container' },
    },
    async (c, { body }) => {
      const container = find(c.req.param('id') ?? '');
      let updated = await changeUpdatePolicy(deps, container, body);
      // A skip taken back: the container is checked again before the answer, so an update a cycle
      // hid while it was skipped shows again. Awaited, not left running: a check still in flight
      // when the next policy change lands would store the record with the policy it read first.
      // A check that fails leaves its error on the record (the watcher's own way).
      if (skipListsShrank(container.updatePolicy, updated.updatePolicy)) {
        const checked = await deps.fleet
          .ownerOf(container)
          ?.watchContainer(container.id)
          .catch(() => undefined);
        if (checked?.container) updated = checked.container;
      }
      await deps.audit.append({
        action: body.action === 'clear' ? 'update-policy-override-cleared' : 'update-policy-override-set',
        containerName: container.name,
        details: body.action,
      });
      return c.json(shown(updated));
    },
  );
}
