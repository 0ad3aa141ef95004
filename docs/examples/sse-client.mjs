// A plain EventSource client of the hub's UI event stream (docs/events.md), for Node 20 and later
// with the `eventsource` package (npm install eventsource). test/docs/sse-client-example.test.ts
// runs this very file against a real hub.
import { EventSource } from 'eventsource';

/**
 * Every event of the stream has a name (`event: dd:…`, http-interface §6.1), so an `onmessage`
 * handler receives none of them: listen to each name you want with addEventListener.
 */
export const HUB_EVENTS = [
  'dd:connected',
  'dd:heartbeat',
  'dd:container-added',
  'dd:container-updated',
  'dd:container-removed',
  'dd:container-unhealthy',
  'dd:update-operation-changed',
  'dd:update-applied',
  'dd:update-failed',
  'dd:batch-update-completed',
  'dd:approval-requested',
  'dd:approval-updated',
  'dd:agent-connected',
  'dd:agent-disconnected',
  'dd:agent-stats-changed',
  'dd:resync-required',
];

/**
 * Follows the hub's events: `onEvent({type, id, data})` for each one. Authenticates with an API key
 * (any scope that reads: `read` is enough) or a session cookie (`dd.sid=…`, from POST
 * /api/v1/auth/login); neither is needed in anonymous mode. `lastEventId` resumes after the last
 * event a previous run saw; within one run the EventSource resumes by itself (it sends
 * Last-Event-ID when it reconnects). Answers the EventSource: `close()` it to stop.
 */
export function followHubEvents({ baseUrl, apiKey, cookie, lastEventId, onEvent, onError }) {
  const url = new URL('/api/v1/events/ui', baseUrl);
  // The query parameter, because a new EventSource cannot be given a Last-Event-ID header to start with.
  if (lastEventId) url.searchParams.set('last-event-id', lastEventId);
  const credentials = {
    ...(apiKey && { Authorization: `Bearer ${apiKey}` }),
    ...(cookie && { Cookie: cookie }),
  };
  const source = new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, ...credentials } }),
  });
  for (const type of HUB_EVENTS) {
    source.addEventListener(type, (event) => {
      onEvent({ type, id: event.lastEventId, data: JSON.parse(event.data) });
    });
  }
  source.addEventListener('error', (error) => onError?.(error));
  return source;
}

// As a script: DD_API_KEY=ddk_… node docs/examples/sse-client.mjs http://127.0.0.1:3000 [last-event-id]
// prints one JSON line per event; give the last id printed to resume where it stopped.
if (process.argv[1] && import.meta.url === new URL(process.argv[1], 'file:').href) {
  const [baseUrl = 'http://127.0.0.1:3000', lastEventId] = process.argv.slice(2);
  followHubEvents({
    baseUrl,
    apiKey: process.env.DD_API_KEY,
    lastEventId,
    onEvent: (event) => console.log(JSON.stringify(event)),
    onError: (error) => console.error(`stream error: ${error.message ?? error.code ?? 'reconnecting'}`),
  });
}
