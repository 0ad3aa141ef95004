import type { Hono } from 'hono';
import { DockerNotFoundError } from '../../../shared/docker/docker-host';
import { type ListenContext, watcherOf } from './listen-context';
import { ListenHttpError } from './listen-errors';
import type { ListenWatcher } from './listen-watcher';

/**
 * `GET /api/images/{id}/export?watcher=` (docs/listen-mode.md "This agent's additions"): the image as
 * the watcher's Docker saves it, the raw tar streamed as it is read. The body pulls the Engine's
 * stream only as the hub reads it (HTTP's own flow control), and a hub that goes away stops it. The
 * scanner reads images this way (docs/security-scanning.md).
 */
export function registerImageExportRoute(app: Hono, context: ListenContext): void {
  app.get('/api/images/:id/export', async (c) => {
    const id = c.req.param('id');
    const watcher = await watcherOfImage(context, id, c.req.query('watcher'));
    const exportImage = watcher.host.exportImage?.bind(watcher.host);
    if (!exportImage) throw new ListenHttpError(404, `Watcher ${watcher.name} cannot export images`);
    const controller = new AbortController();
    const pieces = exportImage(id, controller.signal)[Symbol.asyncIterator]();
    let first: IteratorResult<Uint8Array> | undefined;
    try {
      // Before any header: an unknown image still gets a JSON 404.
      first = await pieces.next();
    } catch (error) {
      controller.abort();
      if (error instanceof DockerNotFoundError)
        throw new ListenHttpError(404, `The image ${id.slice(0, 80)} does not exist in Docker`);
      throw error;
    }
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        const next = first ?? (await pieces.next());
        first = undefined;
        if (next.done) stream.close();
        else stream.enqueue(next.value);
      },
      cancel() {
        controller.abort();
        void pieces.return?.(undefined);
      },
    });
    return c.body(body, 200, { 'Content-Type': 'application/x-tar', 'Cache-Control': 'no-store' });
  });
}

/** The named watcher, else the first whose Docker knows the image; 404 when none does. */
async function watcherOfImage(context: ListenContext, id: string, named: string | undefined): Promise<ListenWatcher> {
  if (named !== undefined) return watcherOf(context, 'docker', named);
  for (const watcher of context.watchers) {
    if (await watcher.host.inspectImage(id).catch(() => undefined)) return watcher;
  }
  throw new ListenHttpError(404, `Unknown image ${id.slice(0, 80)}`);
}
