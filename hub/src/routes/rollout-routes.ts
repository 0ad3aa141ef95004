import * as v from 'valibot';
import { ROLLOUT_STATES, RolloutSchema, RolloutStartBodySchema } from '../../../shared/schemas/rollout';
import { HttpError } from '../http/http-error';
import { pageOf } from '../http/paged-list';
import { qEnum, qInt } from '../http/query-params';
import { addReadOneRoute } from '../http/read-one-route';
import type { RouteGroup } from '../http/route-group';
import type { RolloutRefusal, RolloutResult } from '../rollouts/rollout-refusal';
import type { RolloutService } from '../rollouts/rollout-service';
import { principalName } from './principal-name';

export interface RolloutRoutesDeps {
  rollouts: Pick<RolloutService, 'list' | 'get' | 'start' | 'pause' | 'resume' | 'abort'>;
}

/** A refusal's HTTP answer: 404 for an unknown rollout, else 409 naming the reason and what goes with it. */
function refusalError(refusal: RolloutRefusal): HttpError {
  const { reason, message, ...details } = refusal;
  if (reason === 'unknown-rollout') return new HttpError(404, message);
  return new HttpError(409, message, { reason, ...details });
}

const answered = (result: RolloutResult) => {
  if (!result.ok) throw refusalError(result.refusal);
  return result.rollout;
};

/** Staged rollouts across hosts (docs/group-policies.md "Staged rollouts"): start, list, read, pause, resume, abort. */
export function registerRolloutRoutes(api: RouteGroup, deps: RolloutRoutesDeps): void {
  const { rollouts } = deps;
  const find = (id: string) => {
    const rollout = rollouts.get(id);
    if (!rollout) throw new HttpError(404, `Unknown rollout ${id.slice(0, 80)}`);
    return rollout;
  };

  api.add(
    {
      method: 'get',
      path: '/rollouts',
      access: 'read',
      tag: 'rollouts',
      summary: 'Staged rollouts, newest first',
      query: {
        state: qEnum(ROLLOUT_STATES, { description: 'Only rollouts in this state' }),
        limit: qInt({ min: 0, max: 200, default: 50, description: '0 means unbounded' }),
        offset: qInt({ min: 0, max: 10_000_000, default: 0 }),
      },
      response: v.object({
        data: v.array(RolloutSchema),
        total: v.number(),
        limit: v.number(),
        offset: v.number(),
        hasMore: v.boolean(),
      }),
    },
    (c, { query }) =>
      c.json(
        pageOf(
          rollouts.list().filter((rollout) => query.state === undefined || rollout.state === query.state),
          query,
        ),
      ),
  );

  api.add(
    {
      method: 'post',
      path: '/rollouts',
      access: 'containers:update',
      tag: 'rollouts',
      summary:
        'Start a staged rollout of an image to its pending candidate on every host running it: the canary host, then waves; answers it running',
      body: RolloutStartBodySchema,
      response: RolloutSchema,
      successStatus: 201,
      statuses: {
        400: 'Invalid body',
        409: 'Nothing to roll out (no-candidates), several candidates and none named (candidates-differ), or one under way (rollout-active)',
      },
    },
    async (c, { body }) => c.json(answered(await rollouts.start(body, principalName(c))), 201),
  );

  addReadOneRoute(api, {
    path: '/rollouts/:id',
    tag: 'rollouts',
    summary: 'One rollout: its hosts by wave, each with its containers and their operations, and what halted it',
    response: RolloutSchema,
    notFound: 'Unknown rollout',
    find,
  });

  const transition = (action: 'pause' | 'resume' | 'abort', summary: string) =>
    api.add(
      {
        method: 'post',
        path: `/rollouts/:id/${action}`,
        access: 'containers:update',
        tag: 'rollouts',
        summary,
        response: RolloutSchema,
        statuses: { 404: 'Unknown rollout', 409: 'Not in a state that allows it (rollout-state)' },
      },
      async (c) => c.json(answered(await rollouts[action](c.req.param('id') ?? '', principalName(c)))),
    );
  transition('pause', 'Pause a running rollout: the wave under way ends, the next one waits for resume');
  transition('resume', 'Resume a paused or interrupted rollout at its next wave');
  transition(
    'abort',
    'Abort a rollout: the wave under way ends (its updates are not cancelled), no host after it is touched',
  );
}
