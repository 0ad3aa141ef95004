import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HubProcess, startHubProcess } from '../support/hub-process';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk';

async function recordFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.rec'))
    .map((entry) => join(entry.parentPath, entry.name));
}

const patch = (hub: HubProcess, body: unknown) =>
  fetch(`${hub.url}/api/v1/settings`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('fs store on a full disk (a real tmpfs filled with a ballast file)', () => {
  let disk: SmallDisk;
  let hub: HubProcess;
  beforeAll(async () => {
    disk = mountSmallDisk(4);
    hub = await startHubProcess({ DD_STORE_DRIVER: 'fs', DD_STORE_PATH: join(disk.path, 'data') });
  }, 60_000);
  afterAll(async () => {
    await hub?.kill('SIGTERM');
    disk?.close();
  });

  it('answers writes with 507 and a JSON body while full, writes nothing torn, and recovers without a restart', async () => {
    expect((await patch(hub, { updateMode: 'notify' })).status).toBe(200);

    disk.fill();
    const refused = await patch(hub, { updateMode: 'auto' });
    expect(refused.status).toBe(507);
    expect(refused.headers.get('content-type')).toMatch(/application\/json/);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(await refused.json()).toMatchObject({
      error: expect.stringMatching(/no space left/),
      details: { reason: 'storage-full' },
    });
    // The refused value was never applied: the last acknowledged one is what reads back.
    expect(await (await fetch(`${hub.url}/api/v1/settings`)).json()).toMatchObject({ updateMode: 'notify' });
    // Reads go on while the disk is full.
    expect((await fetch(`${hub.url}/health`)).status).toBe(200);

    disk.free();
    const accepted = await patch(hub, { updateMode: 'auto' });
    expect(accepted.status).toBe(200);
    expect(await (await fetch(`${hub.url}/api/v1/settings`)).json()).toMatchObject({ updateMode: 'auto' });

    // Every record on the disk parses: none was left half written.
    const files = await recordFiles(join(disk.path, 'data'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) JSON.parse(await readFile(file, 'utf8'));
  }, 60_000);
});
