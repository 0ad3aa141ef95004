import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { AGENT_SECRET_HEADER } from '../../../shared/agent-api/listen-schemas';
import { timingSafeEqualText } from '../../../shared/crypto/timing-safe-equal';
import { registerContainerRoutes } from './container-routes';
import { registerEventRoute } from './event-route';
import { registerImageExportRoute } from './image-export-route';
import { registerImagePullRoute } from './image-pull-route';
import type { ListenContext } from './listen-context';
import { errorJson, listenErrorHandler } from './listen-errors';
import { parseLogEntriesQuery } from './log-query';
import { registerUpdateRoutes } from './update-routes';
import { registerWatcherRoutes } from './watcher-routes';

const MAX_BODY_BYTES = 1024 * 1024;
/** Refused secrets are logged at most this often (with their count), so a scan cannot flood the log. */
const REFUSAL_LOG_INTERVAL_MS = 60_000;

export interface ListenApp {
  app: Hono;
  /** Ends every open event stream once its pending events went out, within a second (the agent is stopping). */
  closeStreams(): Promise<void>;
}

/**
 * The agent internal interface of http-interface §4.5 over the agent's watchers and state: every route needs
 * X-Dd-Agent-Secret (compared in constant time), except GET /health.
 */
export function createListenApp(context: ListenContext): ListenApp {
  const app = new Hono();
  const { logger } = context;
  let refused = 0;
  let lastRefusalLog = 0;

  app.get('/health', (c) => {
    if (context.watchers.some((watcher) => watcher.registered)) return c.json({ uptime: process.uptime() });
    const failing = context.watchers.map((w) =>
      w.lastError ? `docker.${w.name}: ${w.lastError}` : `docker.${w.name}: not observed yet`,
    );
    const reason =
      context.watchers.length === 0
        ? 'no watcher is configured (DD_LOCAL_WATCHER=false and no DD_WATCHER_*)'
        : `no watcher is registered yet (${failing.join('; ').slice(0, 500)})`;
    return c.json({ status: 'unhealthy', reason }, 503);
  });

  app.use('*', async function requireSecret(c, next) {
    const given = c.req.header(AGENT_SECRET_HEADER);
    if (given !== undefined && (await timingSafeEqualText(given, context.secret))) return next();
    refused += 1;
    const now = Date.now();
    if (now - lastRefusalLog >= REFUSAL_LOG_INTERVAL_MS) {
      logger.warn(
        `refused ${refused} request(s) without a valid ${AGENT_SECRET_HEADER} (latest: ${c.req.method} ${new URL(c.req.url).pathname})`,
      );
      refused = 0;
      lastRefusalLog = now;
    }
    return errorJson(c, 401, `A valid ${AGENT_SECRET_HEADER} header is required`);
  });
  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => errorJson(c, 413, `The request body exceeds ${MAX_BODY_BYTES} bytes`),
    }),
  );

  registerContainerRoutes(app, context);
  registerWatcherRoutes(app, context);
  registerUpdateRoutes(app, context);
  registerImageExportRoute(app, context);
  registerImagePullRoute(app, context);
  const events = registerEventRoute(app, context);
  app.get('/api/log/entries', (c) => {
    const query = parseLogEntriesQuery(c.req.query());
    return c.json(context.ring.query(query));
  });

  app.notFound((c) => errorJson(c, 404, `No route ${c.req.method} ${new URL(c.req.url).pathname.slice(0, 200)}`));
  app.onError(listenErrorHandler(logger));
  return { app, closeStreams: events.closeAll };
}
