import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fixture answers at one path. */
export interface IconAnswer {
  status?: number;
  contentType?: string;
  body: string | Uint8Array;
  /** Sent in pieces without Content-Length, so only a reader that counts can cap it. */
  chunked?: boolean;
  /** Never answered (a hung upstream). */
  stall?: boolean;
  /** More headers (a redirect's Location). */
  headers?: Record<string, string>;
}

export interface IconServer {
  /** `http://127.0.0.1:PORT`; each set lives under its own folder: `${url}/selfhst`, … */
  url: string;
  /** Paths requested, in order. */
  requests: string[];
  /** Sets (or replaces) the answer at a path such as `/selfhst/svg/nginx.svg`. */
  serve(path: string, answer: IconAnswer): void;
  close(): Promise<void>;
}

/** The smallest valid PNG: a 1×1 transparent pixel. */
export const TINY_PNG = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'base64',
  ),
);

function send(res: ServerResponse, answer: IconAnswer): void {
  const body = typeof answer.body === 'string' ? Buffer.from(answer.body) : Buffer.from(answer.body);
  const headers: Record<string, string> = {
    'content-type': answer.contentType ?? 'application/octet-stream',
    ...answer.headers,
  };
  if (!answer.chunked) headers['content-length'] = String(body.length);
  res.writeHead(answer.status ?? 200, headers);
  if (!answer.chunked) {
    res.end(body);
    return;
  }
  for (let offset = 0; offset < body.length; offset += 16 * 1024) res.write(body.subarray(offset, offset + 16 * 1024));
  res.end();
}

/**
 * An icon CDN on 127.0.0.1 standing in for jsDelivr: the hub's DD_ICONS_<SET>_URL point at its
 * folders. Unknown paths answer 404, as the real sets do for a missing icon.
 */
export async function startIconServer(): Promise<IconServer> {
  const answers = new Map<string, IconAnswer>();
  const requests: string[] = [];
  const stalled = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://fixture').pathname;
    requests.push(path);
    const answer = answers.get(path);
    if (!answer) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    if (answer.stall) {
      stalled.add(res);
      return;
    }
    send(res, answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    serve: (path, answer) => {
      answers.set(path, answer);
    },
    close: async () => {
      for (const res of stalled) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
