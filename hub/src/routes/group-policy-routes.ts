import * as v from 'valibot';
import {
  EffectiveGroupPolicySchema,
  GROUP_POLICY_SCOPES,
  type GroupPolicy,
  GroupPolicyBodySchema,
  GroupPolicySchema,
  type GroupPolicyScope,
  PolicyNameSchema,
} from '../../../shared/schemas/group-policy';
import type { Settings } from '../../../shared/schemas/settings';
import type { Publish } from '../events/event-bus';
import { HttpError } from '../http/http-error';
import type { RouteGroup } from '../http/route-group';
import { effectiveGroupPolicy } from '../policies/effective-group-policy';
import type { GroupPolicyStore } from '../policies/group-policy-store';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import { findContainer } from './container-target';
import { principalName } from './principal-name';

export interface GroupPolicyRoutesDeps {
  policies: GroupPolicyStore;
  containers: Pick<ContainerStore, 'get'>;
  settings: { get(): Pick<Settings, 'updateMode' | 'approvalRequired'> };
  audit: Pick<AuditStore, 'append'>;
  publish: Publish;
  now: () => number;
}

/** The scope and name of the URL, checked: 404 for an unknown scope, 400 for a name no group could have. */
function addressOf(scope: string | undefined, name: string | undefined): { scope: GroupPolicyScope; name: string } {
  if (!(GROUP_POLICY_SCOPES as readonly string[]).includes(scope ?? ''))
    throw new HttpError(404, `Unknown policy scope ${(scope ?? '').slice(0, 40)}: group or agent`);
  const parsed = v.safeParse(PolicyNameSchema, name ?? '');
  if (!parsed.success) throw new HttpError(400, 'Invalid group or agent name', { parameter: 'name' });
  return { scope: scope as GroupPolicyScope, name: parsed.output };
}

/** What the audit entry says of a policy: its fields, short. */
function summary(policy: GroupPolicy): string {
  const { scope: _s, name: _n, createdAt: _c, updatedAt: _u, ...fields } = policy;
  return JSON.stringify(fields).slice(0, 600);
}

/**
 * Group policies (docs/group-policies.md): the update policy of a group (`dd.group` or compose
 * project) or of an agent. List, get, set (the whole policy), clear; and the effective policy of
 * one container with the source of each value.
 */
export function registerGroupPolicyRoutes(api: RouteGroup, deps: GroupPolicyRoutesDeps): void {
  const { policies } = deps;
  const path = '/group-policies/:scope/:name';
  const statuses = { 400: 'Invalid name or body', 404: 'Unknown scope' } as const;

  api.add(
    {
      method: 'get',
      path: '/group-policies',
      access: 'read',
      tag: 'group-policies',
      summary: 'Every group and agent policy: agents first, then groups, each by name',
      response: v.object({ data: v.array(GroupPolicySchema), total: v.number() }),
    },
    (c) => {
      const data = policies.all();
      return c.json({ data, total: data.length });
    },
  );

  api.add(
    {
      method: 'get',
      path,
      access: 'read',
      tag: 'group-policies',
      summary: 'One policy: scope `group` (a dd.group or compose project name) or `agent` (`__local__` for the hub)',
      response: GroupPolicySchema,
      statuses: { ...statuses, 404: 'Unknown scope, or no policy for that name' },
    },
    (c) => {
      const { scope, name } = addressOf(c.req.param('scope'), c.req.param('name'));
      const policy = policies.get(scope, name);
      if (!policy) throw new HttpError(404, `No ${scope} policy for ${name}`);
      return c.json(policy);
    },
  );

  api.add(
    {
      method: 'put',
      path,
      access: 'settings:write',
      tag: 'group-policies',
      summary: 'Set the policy (the whole of it: absent fields fall to the next level); answers it',
      body: GroupPolicyBodySchema,
      response: GroupPolicySchema,
      statuses,
    },
    async (c, { body }) => {
      const { scope, name } = addressOf(c.req.param('scope'), c.req.param('name'));
      const policy = await policies.set(scope, name, body, new Date(deps.now()).toISOString());
      await deps.audit.append({
        action: 'group-policy-set',
        status: 'success',
        details: `${scope} ${name} by ${principalName(c)}: ${summary(policy)}`,
      });
      deps.publish('dd:group-policy-updated', { scope, name, policy });
      return c.json(policy);
    },
  );

  api.add(
    {
      method: 'delete',
      path,
      access: 'settings:write',
      tag: 'group-policies',
      summary: 'Clear the policy; answers the policy removed',
      response: GroupPolicySchema,
      statuses: { ...statuses, 404: 'Unknown scope, or no policy for that name' },
    },
    async (c) => {
      const { scope, name } = addressOf(c.req.param('scope'), c.req.param('name'));
      const removed = await policies.clear(scope, name);
      if (!removed) throw new HttpError(404, `No ${scope} policy for ${name}`);
      await deps.audit.append({
        action: 'group-policy-cleared',
        status: 'success',
        details: `${scope} ${name} by ${principalName(c)}`,
      });
      deps.publish('dd:group-policy-updated', { scope, name, policy: null });
      return c.json(removed);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/containers/:id/group-policy',
      access: 'read',
      tag: 'containers',
      summary:
        "The policies that apply to this container (its agent's, its group's) and the effective value of each setting with its source",
      response: EffectiveGroupPolicySchema,
      statuses: { 404: 'Unknown container' },
    },
    (c) => {
      const container = findContainer(deps.containers, c.req.param('id') ?? '');
      return c.json(effectiveGroupPolicy(container, deps.settings.get(), policies));
    },
  );
}
