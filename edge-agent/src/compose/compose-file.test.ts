import { chmod, lstat, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createComposeFileEditor } from './compose-file';

// biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own interpolation, written literally
const INTERPOLATED = 'services:\n  web:\n    image: registry.local/app:${TAG}\n';
const TEXT =
  '# my stack\nservices:\n  web:\n    image: "registry.local/app:1.0.0"  # the app\n\n  db:\n    image: pg:16\n';

describe('createComposeFileEditor', () => {
  let dir: string;
  let file: string;
  let clock = Date.parse('2026-11-21T16:25:01Z');
  const editor = createComposeFileEditor({ now: () => clock });
  const change = (oldImage = 'registry.local/app:1.0.0', newImage = 'registry.local/app:2.0.0') => ({
    files: [file],
    service: 'web',
    oldImage,
    newImage,
  });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dd-compose-'));
    file = join(dir, 'compose.yml');
    await writeFile(file, TEXT);
    await chmod(file, 0o640);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('rewrites the image line, keeps the mode, and keeps the old text in a stamped backup', async () => {
    const outcome = await editor.setServiceImage(change());
    const backupPath = `${file}.20261121T162501Z.bak`;
    expect(outcome).toEqual({ path: file, backupPath, status: 'rewritten' });
    expect(await readFile(file, 'utf8')).toBe(TEXT.replace('app:1.0.0', 'app:2.0.0'));
    expect(await readFile(backupPath, 'utf8')).toBe(TEXT);
    expect((await lstat(file)).mode & 0o777).toBe(0o640);
    expect((await lstat(backupPath)).mode & 0o777).toBe(0o640);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('keeps the newest 5 backups, two edits in one second included', async () => {
    let version = 1;
    for (let round = 0; round < 7; round++) {
      if (round !== 3) clock += 1000;
      const outcome = await editor.setServiceImage(
        change(`registry.local/app:${version}.0.0`, `registry.local/app:${version + 1}.0.0`),
      );
      expect(outcome.status).toBe('rewritten');
      version++;
    }
    const backups = (await readdir(dir)).filter((name) => name.endsWith('.bak')).sort();
    expect(backups).toHaveLength(5);
    // The oldest two (versions 1 and 2) went; the newest backup holds version 7.
    const texts = await Promise.all(backups.map((name) => readFile(join(dir, name), 'utf8')));
    expect(texts.some((text) => text.includes('app:1.0.0') || text.includes('app:2.0.0'))).toBe(false);
    expect(texts.some((text) => text.includes('app:7.0.0'))).toBe(true);
    expect(backups.some((name) => /-2\.bak$/.test(name))).toBe(true);
  });

  it('leaves the file alone for a digest-only update and for a value it will not touch', async () => {
    expect(await editor.setServiceImage(change('registry.local/app:1.0.0', 'registry.local/app:1.0.0'))).toMatchObject({
      path: file,
      status: 'unchanged',
    });
    await writeFile(file, INTERPOLATED);
    expect(await editor.setServiceImage(change())).toMatchObject({
      status: 'skipped',
      reason: expect.stringMatching(/interpolation/),
    });
    // A digest-only update has nothing to write, whatever the value looks like.
    expect(await editor.setServiceImage(change('registry.local/app:1.0.0', 'registry.local/app:1.0.0'))).toMatchObject({
      status: 'unchanged',
    });
    expect(await readFile(file, 'utf8')).toBe(INTERPOLATED);
    expect((await readdir(dir)).filter((name) => name.endsWith('.bak'))).toEqual([]);
  });

  it('refuses a symlink, a directory, a missing file and a file over the size limit', async () => {
    const link = join(dir, 'link.yml');
    await symlink(file, link);
    expect(await editor.setServiceImage({ ...change(), files: [link] })).toMatchObject({
      status: 'skipped',
      reason: expect.stringMatching(/not a regular file/),
    });
    expect(await editor.setServiceImage({ ...change(), files: [dir] })).toMatchObject({
      status: 'skipped',
      reason: expect.stringMatching(/not a regular file/),
    });
    expect(await editor.setServiceImage({ ...change(), files: [join(dir, 'gone.yml')] })).toMatchObject({
      status: 'skipped',
      reason: expect.stringMatching(/ENOENT/),
    });
    const small = createComposeFileEditor({ maxBytes: 16 });
    expect(await small.setServiceImage(change())).toMatchObject({
      status: 'skipped',
      reason: expect.stringMatching(/larger than 16 bytes/),
    });
    expect(await readFile(file, 'utf8')).toBe(TEXT);
  });

  it('keeps a byte order mark and refuses a file that is not UTF-8', async () => {
    await writeFile(file, `\ufeff${TEXT}`);
    expect(await editor.setServiceImage(change())).toMatchObject({ status: 'rewritten' });
    expect(await readFile(file)).toEqual(Buffer.from(`\ufeff${TEXT.replace('app:1.0.0', 'app:2.0.0')}`));
    const latin1 = Buffer.from('# caf\xe9\nservices:\n  web:\n    image: registry.local/app:1.0.0\n', 'latin1');
    await writeFile(file, latin1);
    expect(await editor.setServiceImage(change())).toMatchObject({
      status: 'skipped',
      reason: `${file}: not UTF-8 text`,
    });
    expect(await readFile(file)).toEqual(latin1);
  });

  it('rewrites the override that sets the image, not the base', async () => {
    const override = join(dir, 'compose.override.yml');
    await writeFile(override, 'services:\n  web:\n    # the pinned one\n    image: registry.local/app:1.0.0\n');
    const outcome = await editor.setServiceImage({
      ...change(),
      files: [file, override, join(dir, 'compose.ports.yml')],
    });
    // compose.ports.yml does not exist: the search stops there rather than guessing.
    expect(outcome).toMatchObject({ status: 'skipped', path: join(dir, 'compose.ports.yml') });
    const rewritten = await editor.setServiceImage({ ...change(), files: [file, override] });
    expect(rewritten).toMatchObject({ status: 'rewritten', path: override });
    expect(await readFile(override, 'utf8')).toBe(
      'services:\n  web:\n    # the pinned one\n    image: registry.local/app:2.0.0\n',
    );
    expect(await readFile(file, 'utf8')).toBe(TEXT);
  });
});
