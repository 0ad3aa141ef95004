import type { Logger } from '../../../shared/logging/logger';
import { formatImageReference } from '../../../shared/registry/image-reference';
import type { FleetLookups } from '../checks/fleet-lookups';
import { HttpError } from '../http/http-error';
import type { RouteGroup } from '../http/route-group';
import type { HubMetrics } from '../metrics/hub-metrics';
import { type ContainerHosts, watcherOf } from '../routes/container-target';
import type { ContainerStore } from '../store/container-store';
import { createCheckDispatcher } from './check-dispatcher';
import { matchingContainers } from './matching-containers';
import { parseRegistryEvent, REGISTRY_EVENT_FORMATS } from './registry-events/index';
import { createSignatureVerifier, SIGNATURE_HEADERS, type SignatureVerifier } from './registry-signature';
import { createWebhookGuard, WEBHOOK_STATUSES, type WebhookGuardDeps } from './webhook-guard';

/** Image references echoed in the answer at most (an envelope may hold many events). */
const MAX_ECHOED_IMAGES = 20;
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The registry webhook: its guard and secret, the containers a push matches, and the watchers that check them. */
export interface RegistryWebhookRouteDeps extends WebhookGuardDeps, ContainerHosts {
  logger: Logger;
  metrics: Pick<HubMetrics, 'webhooks'>;
  containers: Pick<ContainerStore, 'all'>;
  /** The fleet's registry lookups, begun afresh for each push; absent without registry providers. */
  registries: { lookups: Pick<FleetLookups, 'beginCycle'> } | undefined;
}

/**
 * POST /api/v1/webhooks/registry (http-interface §4.11, §5.9): a registry (or a relay in front of it) says
 * an image was pushed; every watched container of that registry host and repository, local or
 * on an agent, is checked at once, in the background, and the answer is 202 with what was
 * dispatched. Each watcher checks its matching containers in one observation (a batch trigger
 * sends one message for them), and the checks share one fresh lookup cycle, so containers sharing
 * the repository cost one registry request per question (fleet-wide deduplication).
 *
 * The answer: `received` image references in the payload's pushes, `ignored` entries that are not
 * pushes (pulls, deletes, blobs), `matched` watched containers, `dispatched` checks started now,
 * `queued` folded into the follow-up of their watcher's running check, `unavailable` on a watcher
 * or agent that cannot be reached, and up to 20 `images`.
 */
export function registerRegistryWebhookRoute(api: RouteGroup, deps: RegistryWebhookRouteDeps): void {
  const guard = createWebhookGuard(deps, 'registry');
  const logger = deps.logger.child('webhooks.registry');
  const secret = deps.config.webhooks.secret;
  const verifier: SignatureVerifier | undefined = secret === undefined ? undefined : createSignatureVerifier(secret);
  const checks = createCheckDispatcher(async (containers) => {
    const [first] = containers;
    if (!first) return;
    // Resolved when the check runs: an agent may have left since the event arrived.
    const errors = await watcherOf(deps, first).watchContainers(containers.map((container) => container.id));
    const unreachable = errors.find((error) => error.phase !== 'check');
    if (unreachable)
      logger.warn('a webhook-triggered check could not reach Docker', {
        watcher: first.watcher,
        agent: first.agent,
        error: unreachable.message,
      });
  }, logger);

  api.add(
    {
      method: 'post',
      path: '/webhooks/registry',
      access: 'public',
      tag: 'webhooks',
      summary: `Signed registry push event (HMAC-SHA256 of the body in ${SIGNATURE_HEADERS.join(', ')}); formats: ${REGISTRY_EVENT_FORMATS.map((format) => format.name).join(', ')}`,
      successStatus: 202,
      // Registries and relays send their own media types, or none; the signature, not the type, vouches for it.
      rawBody: true,
      // A registry may send an Authorization header of its own choosing (Harbor's "auth header").
      ownCredential: true,
      securityScheme: 'registrySignature',
      statuses: {
        ...WEBHOOK_STATUSES,
        400: 'Signed, but not JSON or not a known registry event format',
        401: 'Signature missing or invalid',
        403: 'Webhooks are disabled (DD_SERVER_WEBHOOK_ENABLED is not true)',
        500: 'Webhooks are enabled but DD_SERVER_WEBHOOK_SECRET is not set',
      },
    },
    async (c) => {
      guard(c);
      if (!verifier) throw new HttpError(500, 'Registry webhooks are enabled but DD_SERVER_WEBHOOK_SECRET is not set');
      // The exact bytes received: any re-encoding would change what was signed.
      const body = new Uint8Array(await c.req.arrayBuffer());
      const signature = await verifier.verify(
        body,
        SIGNATURE_HEADERS.map((header) => c.req.header(header)),
      );
      if (signature === 'missing')
        throw new HttpError(401, `A signature is required in one of ${SIGNATURE_HEADERS.join(', ')}`);
      if (signature === 'invalid') throw new HttpError(401, 'Invalid signature');
      deps.metrics.webhooks.inc({ action: 'registry' });

      let payload: unknown;
      try {
        payload = JSON.parse(decoder.decode(body));
      } catch {
        throw new HttpError(400, 'The body is not JSON');
      }
      const event = parseRegistryEvent(payload);
      if (!event) {
        throw new HttpError(400, 'Not a registry event this hub reads', {
          formats: REGISTRY_EVENT_FORMATS.map((format) => format.name),
        });
      }
      const matched = matchingContainers(deps.containers.all(), event.images);
      // One fresh lookup cycle for this event: answers cached before the push would hide it.
      if (matched.length > 0) deps.registries?.lookups.beginCycle();
      const reachable = matched.filter((container) => {
        try {
          watcherOf(deps, container);
          return true;
        } catch {
          return false;
        }
      });
      const unavailable = matched.length - reachable.length;
      const { started: dispatched, queued } = checks.dispatch(reachable);
      const images = [
        ...new Set(
          event.images.map((image) =>
            image.registry ? formatImageReference({ ...image, registry: image.registry }) : image.repository,
          ),
        ),
      ];
      logger.info('registry webhook', {
        format: event.format,
        images: images.slice(0, 5),
        matched: matched.length,
        dispatched,
        queued,
        unavailable,
      });
      return c.json(
        {
          message:
            matched.length > 0
              ? `Checking ${dispatched + queued} containers`
              : 'No watched container uses these images',
          format: event.format,
          received: event.images.length,
          ignored: event.ignored,
          matched: matched.length,
          dispatched,
          queued,
          unavailable,
          images: images.slice(0, MAX_ECHOED_IMAGES),
        },
        202,
      );
    },
  );
}
