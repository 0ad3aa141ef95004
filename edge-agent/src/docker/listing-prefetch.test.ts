import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDockerHost } from './dockerode-host';
import { prefetchListing } from './listing-prefetch';

const ENTRY = {
  Id: 'a'.repeat(64),
  Names: ['/web'],
  Image: 'example.com/web:1.0.0',
  ImageID: `sha256:${'b'.repeat(64)}`,
  Created: 1_700_000_000,
  State: 'running',
  Labels: { 'dd.watch': 'true' },
};

let dir: string;
let server: Server;
let socketPath: string;
/** What the Engine stand-in was asked, and how it answers a listing (a status, or the entries). */
let requests: string[];
let listingStatus: number;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dockwatch-prefetch-'));
  socketPath = join(dir, 'docker.sock');
  requests = [];
  listingStatus = 200;
  server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    if (!request.url?.startsWith('/containers/json')) return response.writeHead(404).end('{"message":"no"}');
    response.writeHead(listingStatus, { 'content-type': 'application/json' });
    response.end(listingStatus === 200 ? JSON.stringify([ENTRY]) : '{"message":"broken"}');
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

describe('a prefetched listing in the Docker host (dockwatch check --docker, issue 29)', () => {
  it('is the first listing of the host for its socket: the Engine is asked once', async () => {
    const listing = prefetchListing(socketPath, false);
    const host = createDockerHost({ socketPath, listing });
    expect(await host.listContainers(false)).toEqual([
      {
        id: ENTRY.Id,
        name: 'web',
        image: ENTRY.Image,
        imageId: ENTRY.ImageID,
        state: 'running',
        labels: ENTRY.Labels,
        createdAt: ENTRY.Created * 1000,
      },
    ]);
    await host.listContainers(false);
    expect(requests).toEqual(['GET /containers/json?all=false', 'GET /containers/json?all=false']);
    await host.close();
  });

  it('is not used for another question or another socket; a failed one makes the host list itself', async () => {
    const other = createDockerHost({ socketPath, listing: prefetchListing(socketPath, true) });
    await other.listContainers(false);
    const elsewhere = createDockerHost({ socketPath, listing: prefetchListing(join(dir, 'missing.sock'), false) });
    await elsewhere.listContainers(false);
    expect(requests.filter((request) => request.endsWith('all=false'))).toHaveLength(2);
    listingStatus = 500;
    const failed = prefetchListing(socketPath, false);
    await expect(failed.take()).rejects.toThrow('the Engine answered 500');
    listingStatus = 200;
    const host = createDockerHost({ socketPath, listing: failed });
    expect((await host.listContainers(false)).map((summary) => summary.name)).toEqual(['web']);
    await Promise.all([other.close(), elsewhere.close(), host.close()]);
  });
});
