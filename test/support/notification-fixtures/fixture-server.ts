import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as it reached a fixture, kept for assertions. */
export interface RecordedRequest {
  method: string;
  /** The path as sent (still percent-encoded). */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
  /** The body parsed as a form, when it is `application/x-www-form-urlencoded`. */
  form?: URLSearchParams;
}

export interface FixtureAnswer {
  status: number;
  headers?: Record<string, string>;
  /** A string is sent as it is (text/plain unless headers say otherwise); anything else as JSON. */
  body?: unknown;
}

/** A service's documented behaviour: what it answers to a request. */
export type ServiceBehaviour = (request: RecordedRequest) => FixtureAnswer;

export interface FixtureServer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Every request, in order. */
  requests: RecordedRequest[];
  /** The requests the service accepted (answered 2xx). */
  accepted: RecordedRequest[];
  /** The next request is recorded but answered with this instead (an outage, a rate limit). */
  answerNextWith(answer: FixtureAnswer): void;
  /** While true, requests are read and never answered (a hung receiver). */
  stall: boolean;
  close(): Promise<void>;
}

/**
 * A small HTTP server on 127.0.0.1 standing in for a notification service that the tests cannot
 * reach: the behaviour function reproduces the service's documented API (paths, auth, fields,
 * answers), this records what arrived.
 */
export async function startFixtureServer(behaviour: ServiceBehaviour): Promise<FixtureServer> {
  const requests: RecordedRequest[] = [];
  const accepted: RecordedRequest[] = [];
  const overrides: FixtureAnswer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const target = new URL(req.url ?? '/', 'http://fixture');
      const text = Buffer.concat(chunks).toString('utf8');
      const type = req.headers['content-type'] ?? '';
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: target.pathname,
        query: target.searchParams,
        headers: req.headers,
        text,
      };
      if (type.startsWith('application/json')) {
        try {
          recorded.json = JSON.parse(text);
        } catch {
          // Left undefined: the behaviour answers a malformed body as its service does.
        }
      } else if (type.startsWith('application/x-www-form-urlencoded')) {
        recorded.form = new URLSearchParams(text);
      }
      requests.push(recorded);
      if (fixture.stall) return;
      const answer = overrides.shift() ?? behaviour(recorded);
      if (answer.status >= 200 && answer.status < 300) accepted.push(recorded);
      const isText = typeof answer.body === 'string';
      const payload = answer.body === undefined ? '' : isText ? (answer.body as string) : JSON.stringify(answer.body);
      res.writeHead(answer.status, {
        ...(answer.body !== undefined && { 'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json' }),
        ...answer.headers,
      });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fixture: FixtureServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    accepted,
    answerNextWith: (answer) => overrides.push(answer),
    stall: false,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fixture;
}

/** The bearer token of an `Authorization: Bearer …` header. */
export function bearerOf(request: RecordedRequest): string | undefined {
  const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
  return match?.[1];
}

/** The user and password of an `Authorization: Basic …` header. */
export function basicOf(request: RecordedRequest): { user: string; password: string } | undefined {
  const match = /^Basic (.+)$/.exec(request.headers.authorization ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The JSON body of the last request the service accepted; fails when there is none. */
export function lastAcceptedJson<T>(fixture: FixtureServer): T {
  const request = fixture.accepted.at(-1);
  if (request?.json === undefined) throw new Error('no accepted JSON request');
  return request.json as T;
}
