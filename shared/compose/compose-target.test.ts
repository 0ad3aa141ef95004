import { describe, expect, it } from 'vitest';
import type { ComposeFileEditor, ComposeImageChange } from './compose-editor';
import { rewriteProject } from './compose-project';
import { composeTargetOf, updateComposeFile } from './compose-target';

const SERVICE = 'com.docker.compose.service';
const FILES = 'com.docker.compose.project.config_files';

describe('composeTargetOf', () => {
  it('reads the files in order and the service; the working dir resolves relative paths', () => {
    expect(
      composeTargetOf({
        [SERVICE]: 'web',
        [FILES]: '/srv/app/compose.yml, override.yml',
        'com.docker.compose.project.working_dir': '/srv/app/',
      }),
    ).toEqual({ files: ['/srv/app/compose.yml', '/srv/app/override.yml'], service: 'web' });
  });

  it('lets dd.compose.file replace the file list', () => {
    expect(
      composeTargetOf({ [SERVICE]: 'web', [FILES]: '/a.yml,/b.yml', 'dd.compose.file': '/stacks/web.yml' }),
    ).toEqual({
      files: ['/stacks/web.yml'],
      service: 'web',
    });
  });

  it('is undefined for a container that names no file, skipped when opted out or without a service', () => {
    expect(composeTargetOf({ [SERVICE]: 'web' })).toBeUndefined();
    expect(composeTargetOf({})).toBeUndefined();
    expect(composeTargetOf({ [SERVICE]: 'web', [FILES]: '/a.yml', 'dd.compose.rewrite': 'FALSE' })).toEqual({
      skipped: { path: '/a.yml', status: 'skipped', reason: 'dd.compose.rewrite=false' },
    });
    expect(composeTargetOf({ 'dd.compose.file': '/a.yml' })).toMatchObject({
      skipped: { status: 'skipped', reason: /no com.docker.compose.service/ },
    });
  });
});

describe('updateComposeFile', () => {
  const labels = { [SERVICE]: 'web', [FILES]: '/a.yml' };
  const seen: ComposeImageChange[] = [];
  const editor: ComposeFileEditor = {
    setServiceImage: async (change) => {
      seen.push(change);
      return { path: '/a.yml', status: 'rewritten', backupPath: '/a.yml.bak' };
    },
  };

  it('hands the change to the editor, and nothing without an editor or compose labels', async () => {
    const input = { labels, oldImage: 'app:1', newImage: 'app:2', triggerName: 'docker.update' };
    expect(await updateComposeFile(editor, input)).toEqual({
      path: '/a.yml',
      status: 'rewritten',
      backupPath: '/a.yml.bak',
    });
    expect(seen).toEqual([
      { files: ['/a.yml'], service: 'web', oldImage: 'app:1', newImage: 'app:2', triggerName: 'docker.update' },
    ]);
    expect(await updateComposeFile(undefined, input)).toBeUndefined();
    expect(await updateComposeFile(editor, { ...input, labels: {} })).toBeUndefined();
  });

  it('turns an editor that rejects into a skipped outcome', async () => {
    const broken: ComposeFileEditor = { setServiceImage: () => Promise.reject(new Error('disk on fire')) };
    expect(await updateComposeFile(broken, { labels, oldImage: 'app:1', newImage: 'app:2' })).toEqual({
      path: '/a.yml',
      status: 'skipped',
      reason: 'disk on fire',
    });
  });
});

describe('rewriteProject', () => {
  const files: Record<string, string> = {
    '/p/base.yml': 'services:\n  web:\n    image: app:1\n  db:\n    image: pg:16\n',
    '/p/override.yml': 'services:\n  web:\n    ports: ["80:80"]\n',
    '/p/images.yml': '# pinned here\nservices:\n  web:\n    image: app:1\n',
  };
  const read = async (path: string) => {
    const text = files[path];
    if (text === undefined) throw new Error(`${path}: no such file`);
    return text;
  };
  const change = (list: string[], service = 'web') => ({ files: list, service, oldImage: 'app:1', newImage: 'app:2' });

  it('rewrites the last file that sets the image', async () => {
    const chosen = await rewriteProject(change(['/p/base.yml', '/p/images.yml', '/p/override.yml']), read);
    expect(chosen).toMatchObject({
      path: '/p/images.yml',
      rewrite: { status: 'rewritten', text: '# pinned here\nservices:\n  web:\n    image: app:2\n' },
    });
    expect(await rewriteProject(change(['/p/base.yml', '/p/override.yml']), read)).toMatchObject({
      path: '/p/base.yml',
      rewrite: { status: 'rewritten' },
    });
  });

  it('stops at a file it cannot read (it might set the image), and reports the base file when none sets it', async () => {
    expect(await rewriteProject(change(['/p/base.yml', '/p/missing.yml']), read)).toEqual({
      path: '/p/missing.yml',
      error: '/p/missing.yml: no such file',
    });
    expect(await rewriteProject(change(['/p/base.yml', '/p/override.yml'], 'cache'), read)).toMatchObject({
      path: '/p/base.yml',
      rewrite: { status: 'absent', reason: 'service "cache" not found' },
    });
  });
});
