import type { Hono } from 'hono';
import { AGENT_PULL_MAX_TIMEOUT_MS, AgentImagePullRequestSchema } from '../../../shared/agent-api/listen-schemas';
import { errorMessage } from '../../../shared/error-message';
import { parseImageReference } from '../../../shared/registry/image-reference';
import { pullImage } from '../requests/image-export';
import { EdgeRequestError } from '../requests/request-error';
import { type ListenContext, namedOrFirstWatcher } from './listen-context';
import { jsonBody, ListenHttpError, parseOr400 } from './listen-errors';

/**
 * `host[:port]`: what the Engine takes as a registry before the first `/` (the agent's Docker host
 * code refuses a bracketed IPv6 address: it is refused here, before the pull).
 */
const REGISTRY_HOST =
  /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::[0-9]{1,5})?$/;
/** The Engine's digest grammar (the shared parser takes any 32 word characters after the colon). */
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;
/** The Engine's limit on a repository name, its registry included. */
const MAX_NAME_LENGTH = 255;

/**
 * `POST /api/images/pull?watcher=` (docs/listen-mode.md "This agent's additions"): the edge
 * protocol's `image.pull` over HTTP, served by the same code (requests/image-export.ts). The hub
 * pulls a container's update candidate this way to scan it (docs/security-scanning.md), with its
 * credentials for the registry in the body. A reference that is not one answers 400 before Docker
 * is asked; a pull that fails or outlasts its bound (9 minutes, or the body's `timeoutMs`) answers
 * 500 `details.code: failed` with the Engine's reason. The wait also ends when the hub goes away.
 */
export function registerImagePullRoute(app: Hono, context: ListenContext): void {
  app.post('/api/images/pull', async (c) => {
    const body = parseOr400(AgentImagePullRequestSchema, await jsonBody(c.req.raw), 'body');
    const { reference, auth } = body;
    const problem = referenceProblem(reference);
    if (problem) throw new ListenHttpError(400, `Invalid reference: ${problem}`, { parameter: 'reference' });
    const watcher = namedOrFirstWatcher(context, c.req.query('watcher'));
    const timeoutMs = body.timeoutMs ?? AGENT_PULL_MAX_TIMEOUT_MS;
    const deadline = AbortSignal.timeout(timeoutMs);
    try {
      return c.json(await pullImage(watcher, reference, auth, AbortSignal.any([deadline, c.req.raw.signal])));
    } catch (error) {
      if (error instanceof EdgeRequestError) throw error;
      const shown = reference.slice(0, 200);
      if (deadline.aborted)
        throw new EdgeRequestError('failed', `the pull of ${shown} did not finish within ${timeoutMs} ms`);
      const reason = errorMessage(error);
      throw new EdgeRequestError('failed', `the pull of ${shown} failed: ${reason}`);
    }
  });
}

/** Why `reference` is no image reference the Engine would pull, or undefined when it is one. */
function referenceProblem(reference: string): string | undefined {
  if (reference !== reference.trim() || /[\s\p{Cc}]/u.test(reference)) return 'it holds whitespace';
  try {
    const { registry, repository, digest } = parseImageReference(reference);
    if (digest !== undefined && !DIGEST.test(digest)) return 'malformed digest';
    if (!REGISTRY_HOST.test(registry)) return `malformed registry host ${JSON.stringify(registry.slice(0, 80))}`;
    if (`${registry}/${repository}`.length > MAX_NAME_LENGTH) return `the name is over ${MAX_NAME_LENGTH} characters`;
  } catch (error) {
    return errorMessage(error);
  }
  return undefined;
}
