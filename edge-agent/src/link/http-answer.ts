import type { IncomingMessage } from 'node:http';
import { shortText } from './frame-checks';
import type { Timers } from './timers';

export interface HttpAnswer {
  status: number;
  /** From a 429's (or 503's) Retry-After in seconds. */
  retryAfterMs?: number;
  /** The `error` of a JSON body (http-interface §2.15), else the start of the text. */
  message?: string;
}

/**
 * A plain HTTP answer to the upgrade (404 with the edge disabled, 426, 429, a proxy's 502): its
 * status and Retry-After at once, and the start of its body when it has arrived (at most 2 s).
 */
export function readHttpAnswer(response: IncomingMessage, timers: Timers, done: (answer: HttpAnswer) => void): void {
  const retryAfter = Number(response.headers['retry-after']);
  const answer: HttpAnswer = {
    status: response.statusCode ?? 0,
    ...(retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
  };
  let body = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    if (body.length < 4096) body += chunk;
  });
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    timers.clearTimeout(timer);
    const message = errorOfBody(body);
    done(message !== undefined ? { ...answer, message } : answer);
  };
  const timer = timers.setTimeout(finish, 2_000);
  response.once('end', finish);
  response.once('error', finish);
}

function errorOfBody(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (typeof parsed.error === 'string') return shortText(parsed.error);
  } catch {
    // Not JSON: a proxy's page, say.
  }
  const text = body.trim();
  return text ? shortText(text, 200) : undefined;
}
