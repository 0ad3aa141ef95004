import type { Hono } from 'hono';
import { AGENT_REVISION_HEADER } from '../../../shared/agent-api/listen-schemas';
import { type DockerLogLine, type DockerLogOptions, DockerNotFoundError } from '../../../shared/docker/docker-host';
import { type ListenContext, watcherOfContainer } from './listen-context';
import { errorJson, ListenHttpError } from './listen-errors';
import type { ContainerAction } from './listen-watcher';
import { logBody, parseContainerLogQuery } from './log-query';

const ACTIONS: readonly ContainerAction[] = ['start', 'stop', 'restart'];

/** The container routes of http-interface §4.5, and this agent's additions the hub uses (actions, stats, followed logs). */
export function registerContainerRoutes(app: Hono, context: ListenContext): void {
  const { state } = context;

  app.get('/api/containers', (c) => {
    c.header(AGENT_REVISION_HEADER, String(state.revision));
    return c.json(state.all());
  });

  // http-interface §4.5: removes the container from the agent's state only (the Docker container stays; the
  // next observation or Docker event finds it again), as the hub's DELETE does with its record.
  app.delete('/api/containers/:id', (c) => {
    if (!context.featureDelete) {
      return errorJson(c, 403, 'Deleting containers is disabled on this agent (DD_SERVER_FEATURE_DELETE=false)', {
        feature: 'DD_SERVER_FEATURE_DELETE',
      });
    }
    const id = c.req.param('id');
    const container = state.find(id);
    if (!container || !state.remove(container.watcher, id))
      return errorJson(c, 404, `Unknown container ${id.slice(0, 80)}`);
    c.header(AGENT_REVISION_HEADER, String(state.revision));
    return c.body(null, 204);
  });

  for (const action of ACTIONS) {
    app.post(`/api/containers/:id/${action}`, async (c) => {
      if (!context.featureContainerActions) {
        return errorJson(
          c,
          403,
          'Container actions are disabled on this agent (DD_SERVER_FEATURE_CONTAINERACTIONS=false)',
          {
            feature: 'DD_SERVER_FEATURE_CONTAINERACTIONS',
          },
        );
      }
      const id = c.req.param('id');
      const watcher = await watcherOfContainer(context, id, c.req.query('watcher'));
      const result = await watcher.act(action, id);
      c.header(AGENT_REVISION_HEADER, String(state.revision));
      return c.json(result);
    });
  }

  app.get('/api/containers/:id/stats', async (c) => {
    const id = c.req.param('id');
    const watcher = await watcherOfContainer(context, id, c.req.query('watcher'));
    return c.json(await watcher.host.stats(id));
  });

  app.get('/api/containers/:id/logs', async (c) => {
    const query = parseContainerLogQuery(c.req.query());
    const id = c.req.param('id');
    const watcher = await watcherOfContainer(context, id, query.watcher);
    const controller = new AbortController();
    const options: DockerLogOptions = {
      stdout: query.stdout,
      stderr: query.stderr,
      since: query.since,
      tail: query.tail,
      timestamps: true,
      follow: query.follow,
    };
    const lines = watcher.host.logs(id, options, controller.signal)[Symbol.asyncIterator]();
    let first: IteratorResult<DockerLogLine>;
    try {
      // Before any header: an unknown container or a Docker failure still gets a JSON error.
      first = await lines.next();
    } catch (error) {
      if (error instanceof DockerNotFoundError)
        throw new ListenHttpError(404, `The container ${id.slice(0, 80)} does not exist in Docker`);
      throw error;
    }
    const jsonl = query.format === 'jsonl';
    const format = jsonl
      ? (line: DockerLogLine) => `${JSON.stringify(line)}\n`
      : (line: DockerLogLine) => (query.timestamps && line.ts ? `${line.ts} ${line.line}\n` : `${line.line}\n`);
    const body = logBody(lines, first, format, () => controller.abort(), query.follow ? 1 : 256);
    return c.body(body, 200, {
      'Content-Type': jsonl ? 'application/x-ndjson' : 'text/plain; charset=utf-8',
      ...(!jsonl && {
        'Content-Disposition': `attachment; filename="${id.slice(0, 64).replace(/[^A-Za-z0-9_.-]/g, '_')}.log"`,
      }),
      'Cache-Control': 'no-store',
    });
  });
}
