/**
 * The Engine's container listing asked for before the rest of a one-shot command has loaded
 * (`dockwatch check --docker`): the Engine takes tens of milliseconds to list a thousand
 * containers, about as long as the command takes to load its modules, so the two overlap instead
 * of adding up (issue 29). Plain node:http on the unix socket, so that dockerode need not be loaded
 * first; the same request dockerode sends (`GET /containers/json?all=…`), and the same answer.
 */
import { type ClientRequest, request } from 'node:http';

export interface ListingPrefetch {
  socketPath: string;
  all: boolean;
  /**
   * The raw listing, once; a failure (any status but 200, a broken answer) rejects, and the host
   * lists itself. It is not kept here after: a thousand containers' entries are megabytes.
   */
  take(): Promise<unknown[]>;
  /** Not wanted after all: the request is dropped. */
  discard(): void;
}

export function prefetchListing(socketPath: string, all: boolean): ListingPrefetch {
  let sent: ClientRequest | undefined;
  let taken = false;
  let entries: Promise<unknown[]> | undefined = new Promise<unknown[]>((resolve, reject) => {
    // A connection of its own (no agent), closed with the answer: nothing of it outlives the request.
    const options = { socketPath, path: `/containers/json?all=${all}`, method: 'GET', agent: false };
    sent = request(options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => {
        sent = undefined; // answered: nothing to discard, and its buffers are not kept
        if (response.statusCode !== 200) return reject(new Error(`the Engine answered ${response.statusCode}`));
        try {
          const listed: unknown = JSON.parse(Buffer.concat(chunks.splice(0)).toString('utf8'));
          if (Array.isArray(listed)) resolve(listed);
          else reject(new Error('the Engine answered something else than a list'));
        } catch (error) {
          reject(error);
        }
      });
    });
    sent.once('error', reject);
    // Until someone waits for it, it does not keep the process alive (a command that fails on its
    // configuration exits at once).
    sent.once('socket', (socket) => {
      if (!taken) socket.unref();
    });
    sent.end();
  });
  entries.catch(() => undefined); // reported by whoever takes it, if anyone does
  return {
    socketPath,
    all,
    take() {
      const listed = entries ?? Promise.reject(new Error('the prefetched listing was taken already'));
      entries = undefined;
      taken = true;
      sent?.socket?.ref();
      return listed;
    },
    discard() {
      sent?.destroy();
    },
  };
}
