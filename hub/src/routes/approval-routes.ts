import type { Context } from 'hono';
import * as v from 'valibot';
import { APPROVAL_STATES, ApprovalSchema, type Decider } from '../../../shared/schemas/approval';
import { SNOOZE_MAX_DAYS } from '../../../shared/schemas/update-policy';
import { parseTimestamp } from '../../../shared/update/timestamp';
import { actorOf } from '../approvals/approval-actors';
import type { Decision, DecisionRefusal } from '../approvals/approval-decisions';
import type { ApprovalService } from '../approvals/approval-service';
import { HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import { pageOf } from '../http/paged-list';
import { qEnum, qInt, qText } from '../http/query-params';
import { addReadOneRoute } from '../http/read-one-route';
import type { RouteGroup } from '../http/route-group';

const CommentSchema = v.pipe(v.string(), v.maxLength(500));
const RejectBodySchema = v.optional(v.strictObject({ comment: v.optional(CommentSchema) }), {});
/** Exactly one of `until` (ISO 8601 with a zone) or `hours`, as the snooze of update-policy takes days or a date. */
const DeferBodySchema = v.pipe(
  v.strictObject({
    until: v.optional(
      v.pipe(
        v.string(),
        v.check(
          (value) => parseTimestamp(value) !== undefined,
          'must be an ISO 8601 date, or date and time with a zone',
        ),
      ),
    ),
    hours: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(SNOOZE_MAX_DAYS * 24))),
    comment: v.optional(CommentSchema),
  }),
  v.check((body) => (body.until === undefined) !== (body.hours === undefined), 'give exactly one of until or hours'),
);
const SummarySchema = v.object({
  total: v.number(),
  ...Object.fromEntries(APPROVAL_STATES.map((state) => [state, v.number()])),
});

/** The HTTP answer of each refused decision (docs/approvals.md "Deciding"). */
function refusalError(refusal: DecisionRefusal): HttpError {
  const { reason, message } = refusal;
  switch (reason) {
    case 'unknown-approval':
      return new HttpError(404, message);
    case 'approval-decided':
      return new HttpError(409, message, { reason, state: refusal.state });
    case 'candidate-changed':
      return new HttpError(409, message, { reason });
    case 'separation-of-duties':
      return new HttpError(403, message, { reason });
    case 'defer-not-in-future':
    case 'defer-too-far':
      return new HttpError(400, message, { reason });
  }
}

/** What a decision taken answers; a refused one is thrown as its HTTP error. */
function taken<T>(decision: Decision<T>): T {
  if (!decision.ok) throw refusalError(decision.refusal);
  return decision;
}

/** Who decided, as the approval records it. */
const deciderOf = (c: Context<HubEnv>): Decider => actorOf(c.get('principal'));

/** The approval routes: the approval service, which runs approved updates through the update service. */
export interface ApprovalRoutesDeps {
  approvals: Pick<ApprovalService, 'list' | 'summary' | 'get' | 'approve' | 'reject' | 'defer'>;
  /** DD_APPROVALS_SEPARATE: deciding needs `approvals:decide` rather than `containers:update`. */
  separateDuties: boolean;
}

/** Update approvals (docs/approvals.md): list, summary, detail, approve, reject, defer. */
export function registerApprovalRoutes(api: RouteGroup, deps: ApprovalRoutesDeps): void {
  const { approvals } = deps;
  // Separation of duties: those who may update are not thereby those who may decide.
  const decide = deps.separateDuties ? 'approvals:decide' : 'containers:update';
  const find = (id: string) => {
    const approval = approvals.get(id);
    if (!approval) throw new HttpError(404, `Unknown approval ${id.slice(0, 80)}`);
    return approval;
  };
  const decisionStatuses = {
    404: 'Unknown approval',
    409: 'Already decided, or the container no longer has that candidate pending',
  } as const;

  api.add(
    {
      method: 'get',
      path: '/approvals',
      access: 'read',
      tag: 'approvals',
      summary: 'Update approvals, newest first',
      query: {
        state: qEnum(APPROVAL_STATES, { description: 'Only approvals in this state' }),
        container: qText({ maxLength: 512, description: 'Only the approvals of this container id, name or identity' }),
        limit: qInt({ min: 0, max: 200, default: 50, description: '0 means unbounded' }),
        offset: qInt({ min: 0, max: 10_000_000, default: 0 }),
      },
      response: v.object({
        data: v.array(ApprovalSchema),
        total: v.number(),
        limit: v.number(),
        offset: v.number(),
        hasMore: v.boolean(),
      }),
    },
    (c, { query }) => c.json(pageOf(approvals.list({ state: query.state, container: query.container }), query)),
  );

  api.add(
    {
      method: 'get',
      path: '/approvals/summary',
      access: 'read',
      tag: 'approvals',
      summary: 'How many approvals are in each state',
      response: SummarySchema,
    },
    (c) => c.json(approvals.summary()),
  );

  addReadOneRoute(api, {
    path: '/approvals/:id',
    tag: 'approvals',
    summary: 'One update approval',
    response: ApprovalSchema,
    notFound: 'Unknown approval',
    find,
  });

  api.add(
    {
      method: 'post',
      path: '/approvals/:id/approve',
      access: decide,
      tag: 'approvals',
      summary: 'Approve the update and run it through the normal update path; answers the queued operation',
      response: v.object({ message: v.string(), approval: ApprovalSchema, operationId: v.string() }),
      successStatus: 202,
      statuses: {
        ...decisionStatuses,
        400: 'The update is no longer available',
        403: 'Container actions are disabled, or the caller requested this update (DD_APPROVALS_SEPARATE)',
        503: 'Its watcher is not available, or its edge agent is not connected (the approval stays approved)',
      },
    },
    async (c) => {
      const { approval, operation } = taken(await approvals.approve(c.req.param('id') ?? '', deciderOf(c)));
      return c.json(
        {
          message: `Update of ${approval.containerName} to ${approval.targetImage} approved and queued`,
          approval,
          operationId: operation.id,
        },
        202,
      );
    },
  );

  api.add(
    {
      method: 'post',
      path: '/approvals/:id/reject',
      access: decide,
      tag: 'approvals',
      summary: "Reject the update: the candidate is added to the container's skips",
      body: RejectBodySchema,
      response: ApprovalSchema,
      statuses: { ...decisionStatuses, 400: 'Invalid body' },
    },
    async (c, { body }) =>
      c.json(taken(await approvals.reject(c.req.param('id') ?? '', deciderOf(c), body.comment)).approval),
  );

  api.add(
    {
      method: 'post',
      path: '/approvals/:id/defer',
      access: decide,
      tag: 'approvals',
      summary: 'Defer the update: the container is snoozed until then, and the approval waits again afterwards',
      body: DeferBodySchema,
      response: ApprovalSchema,
      statuses: { ...decisionStatuses, 400: 'Invalid body, or a time not in the future or too far' },
    },
    async (c, { body }) => {
      const deferBy = body.hours !== undefined ? { hours: body.hours } : { until: body.until ?? '' };
      return c.json(
        taken(await approvals.defer(c.req.param('id') ?? '', deciderOf(c), deferBy, body.comment)).approval,
      );
    },
  );
}
