import type { Hono } from 'hono';
import * as v from 'valibot';
import { AgentUpdateRequestSchema } from '../../../shared/agent-api/listen-schemas';
import { listImages, removeImage } from '../requests/request-handlers';
import { type ListenContext, namedOrFirstWatcher } from './listen-context';
import { jsonBody, ListenHttpError, parseOr400 } from './listen-errors';

/** An image id or reference as the edge protocol's `image.remove` takes it. */
const ImageIdSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(256));

/**
 * This agent's additions for the hub's updates, image list and prune: the edge protocol's
 * `container.update`, `image.list` and `image.remove` over HTTP, served by the same code
 * (requests/request-handlers.ts, updates/agent-updates.ts with its journal). An update outlives
 * the HTTP request that asked for it, as it outlives an edge session: a dropped connection does
 * not roll it back, and its phases go out on the event stream as dd:operation events.
 */
export function registerUpdateRoutes(app: Hono, context: ListenContext): void {
  const { updates } = context;
  const watcherNamed = (name: string | undefined) => namedOrFirstWatcher(context, name);

  app.get('/api/images', async (c) => c.json(await listImages(watcherNamed(c.req.query('watcher')))));

  // Never forced: 409 (details.code `conflict`) while a container uses the image; 204 when it is gone, already or now.
  app.delete('/api/images/:id', async (c) => {
    const imageId = parseOr400(ImageIdSchema, c.req.param('id'), 'id');
    await removeImage(watcherNamed(c.req.query('watcher')), imageId);
    return c.body(null, 204);
  });

  // Answers the settled operation (200): the hub awaits it as it awaits an edge agent's reply, and
  // the phases meanwhile reach it on the stream. A repeated request of the same operation joins it.
  app.post('/api/containers/:id/update', async (c) => {
    const id = c.req.param('id');
    const body = parseOr400(AgentUpdateRequestSchema, await jsonBody(c.req.raw), 'body');
    const { operation, options } = body;
    const watcher = watcherNamed(c.req.query('watcher') ?? operation.watcher);
    if (operation.containerId !== id)
      throw new ListenHttpError(400, 'operation.containerId must be the container of the path', {
        parameter: 'operation.containerId',
      });
    if (operation.watcher !== watcher.name)
      throw new ListenHttpError(400, 'operation.watcher must be the watcher of ?watcher=', {
        parameter: 'operation.watcher',
      });
    const known = updates.reportable().some((reported) => reported.id === operation.id);
    // A new operation on a container Docker does not have would only be journalled as failed.
    if (!known && !(await watcher.host.inspectContainer(id)))
      throw new ListenHttpError(404, `Unknown container ${id.slice(0, 80)}`);
    const settled = await updates.run(watcher, {
      method: 'container.update',
      watcher: watcher.name,
      operation,
      options,
    });
    return c.json(settled);
  });

  app.get('/api/operations', (c) => c.json(updates.reportable()));

  // The hub's cancel (a user's): the update rolls back at its next phase boundary.
  app.post('/api/operations/:id/cancel', (c) => {
    const id = c.req.param('id');
    if (!updates.cancel(id, 'cancelled by the hub'))
      throw new ListenHttpError(404, `No running update ${id.slice(0, 80)}`);
    return c.body(null, 202);
  });
}
