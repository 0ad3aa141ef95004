import type * as v from 'valibot';
import type { RouteGroup } from './route-group';

interface ReadOneSpec<T> {
  /** Ends with the id's parameter, e.g. `/rollouts/:id`. */
  path: string;
  tag: string;
  summary: string;
  response: v.GenericSchema;
  /** The 404's meaning in the documentation ("Unknown rollout"). */
  notFound: string;
  /** The item, or a thrown 404 HttpError naming the id. */
  find: (id: string) => T;
}

/**
 * `GET <collection>/:id` readable with the `read` scope: the one-item read that approvals,
 * rollouts and label overrides each declare, written once.
 */
export function addReadOneRoute<T>(api: RouteGroup, spec: ReadOneSpec<T>): void {
  const parameter = /:([A-Za-z]+)$/.exec(spec.path)?.[1];
  if (!parameter) throw new Error(`${spec.path} does not end with an id parameter`);
  api.add(
    {
      method: 'get',
      path: spec.path,
      access: 'read',
      tag: spec.tag,
      summary: spec.summary,
      response: spec.response,
      statuses: { 404: spec.notFound },
    },
    (c) => c.json(spec.find(c.req.param(parameter) ?? '')),
  );
}
