import type { NotificationTransport } from '../../../notifications/notification-provider';

/**
 * A transport whose module (and library: nodemailer, mqtt.js) is imported only when a trigger of its
 * type is configured, so a hub without one never loads it (docs/benchmarks.md "Footprint"). The
 * import starts at once, so a transport that connects at creation (mqtt) still does; a failed import
 * fails each send, as an unreachable server would.
 */
export function lazyTransport(
  load: () => Promise<NotificationTransport>,
  secrets: readonly string[],
): NotificationTransport {
  const loading = load();
  // Seen by send() and close(); not an unhandled rejection in the meantime.
  loading.catch(() => undefined);
  return {
    secrets,
    async send(message, context) {
      await (await loading).send(message, context);
    },
    async close() {
      const transport = await loading.catch(() => undefined);
      await transport?.close?.();
    },
  };
}
