import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFilesystemSync } from './filesystem-sync';

describe('the filesystem sync helper', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'filesystem-sync-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('answers every sync asked for, in order, concurrent ones included', async () => {
    const filesystem = startFilesystemSync(dir);
    await writeFile(join(dir, 'a'), 'x');
    const order: number[] = [];
    await Promise.all(Array.from({ length: 10 }, (_, i) => filesystem.sync().then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    filesystem.close();
    await expect(filesystem.sync()).rejects.toThrow(/closed/);
  });

  it('rejects when `sync -f` refuses the path, and says which', async () => {
    const filesystem = startFilesystemSync(join(dir, 'missing'));
    await expect(filesystem.sync()).rejects.toThrow(/sync -f failed for .*missing/);
    filesystem.close();
  });
});
