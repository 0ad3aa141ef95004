import * as v from 'valibot';
import { LogEntriesResultSchema } from '../../../shared/edge/protocol';
import { errorMessage } from '../../../shared/error-message';
import { AgentSchema } from '../../../shared/schemas/agent';
import { LOG_LEVELS, LogEntrySchema } from '../../../shared/schemas/log-entry';
import type { AgentDirectory } from '../agents/agent-directory';
import { AgentNotConnectedError } from '../agents/edge-docker-host';
import { EdgeRequestError } from '../agents/edge-requests';
import { HttpError } from '../http/http-error';
import { qEnum, qInt, qText } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';

/** The agent is known, or a 404; connected, or a 503 (http-interface §4.4). */
function requireConnectedAgent(agents: AgentDirectory, name: string) {
  const edge = agents;
  if (!edge.agent(name)) throw new HttpError(404, `Unknown agent ${name.slice(0, 80)}`);
  if (!edge.isConnected(name)) throw new HttpError(503, `The agent ${name} is not connected`, { agent: name });
  return edge;
}

/** An agent's failure as an HTTP answer: away 503, too slow 504, anything else 502 (the hub itself is fine). */
export function agentFailure(name: string, error: unknown): HttpError {
  if (error instanceof AgentNotConnectedError || (error instanceof EdgeRequestError && error.code === 'disconnected')) {
    return new HttpError(503, `The agent ${name} is not connected`, { agent: name });
  }
  if (error instanceof EdgeRequestError && error.code === 'timeout')
    return new HttpError(504, `The agent ${name} did not answer in time`);
  const message = errorMessage(error);
  return new HttpError(502, `The agent ${name} could not answer`, { reason: message.slice(0, 300) });
}

/** GET /api/v1/agents and the proxied log entries of one agent (http-interface §4.4). */
/** The agent routes read the agent directory and proxy requests through it. */
export interface AgentRoutesDeps {
  agents: AgentDirectory;
}

export function registerAgentRoutes(api: RouteGroup, deps: AgentRoutesDeps): void {
  api.add(
    {
      method: 'get',
      path: '/agents',
      access: 'read',
      tag: 'agents',
      summary: 'Agents the hub knows, connected or not (docs/http-interface.md §2.3)',
      response: v.object({ data: v.array(AgentSchema), total: v.number() }),
    },
    (c) => {
      const data = deps.agents.agents();
      return c.json({ data, total: data.length });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/agents/:name/log/entries',
      access: 'read',
      tag: 'agents',
      summary: "The agent's buffered log entries, oldest first; same query and result as /api/v1/log/entries",
      query: {
        level: qEnum(LOG_LEVELS, { description: 'Minimum level' }),
        component: qText({
          maxLength: 100,
          pattern: /^[A-Za-z0-9._:/-]+$/,
          patternText: 'may hold only letters, digits and . _ : / -',
          description: 'Substring of the component name',
        }),
        tail: qInt({ min: 0, max: 1000, default: 100, description: 'Most recent entries to return' }),
        since: qInt({ min: 0, max: Number.MAX_SAFE_INTEGER, description: 'Unix milliseconds; only later entries' }),
      },
      response: v.array(LogEntrySchema),
      statuses: {
        400: 'Invalid query',
        404: 'Unknown agent',
        502: 'The agent failed',
        503: 'Agent not connected',
        504: 'No answer in time',
      },
    },
    async (c, { query }) => {
      const name = c.req.param('name') ?? '';
      const edge = requireConnectedAgent(deps.agents, name);
      let result: unknown;
      try {
        result = await edge.request(name, {
          method: 'log.entries',
          tail: query.tail,
          ...(query.level !== undefined && { level: query.level }),
          ...(query.component !== undefined && { component: query.component }),
          ...(query.since !== undefined && { since: query.since }),
        });
      } catch (error) {
        throw agentFailure(name, error);
      }
      const parsed = v.safeParse(LogEntriesResultSchema, result);
      if (!parsed.success) throw new HttpError(502, `The agent ${name} sent malformed log entries`);
      return c.json(parsed.output.entries);
    },
  );
}
