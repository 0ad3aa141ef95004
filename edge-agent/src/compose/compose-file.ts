import { randomBytes } from 'node:crypto';
import { chown, lstat, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ComposeFileEditor, ComposeImageChange, ComposeRewriteOutcome } from '../../../shared/compose';
import { rewriteProject } from '../../../shared/compose';
import { errorMessage } from '../../../shared/error-message';
import { pruneBackups, writeBackup } from './backup-files';

export interface ComposeFileEditorOptions {
  now?: () => number;
  /** Backups kept per compose file (default 5). */
  keepBackups?: number;
  /** Larger files are refused (default 1 MiB): a compose file is small, anything bigger is something else. */
  maxBytes?: number;
}

const DEFAULT_KEEP_BACKUPS = 5;
const DEFAULT_MAX_BYTES = 1024 * 1024;

/** A regular file (not a symlink, which a rename would replace by a copy) within the size limit. */
async function readComposeFile(path: string, maxBytes: number): Promise<string> {
  if (!path.startsWith('/')) throw new Error(`${path}: not an absolute path`);
  const info = await lstat(path);
  if (!info.isFile()) throw new Error(`${path}: not a regular file`);
  if (info.size > maxBytes) throw new Error(`${path}: larger than ${maxBytes} bytes`);
  return decode(path, await readFile(path));
}

/** Strict UTF-8 with the byte order mark kept: text that would not survive a round trip is refused, not mangled. */
function decode(path: string, bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new Error(`${path}: not UTF-8 text`);
  }
}

/**
 * Replaces the file by a temporary one in the same directory (same mode and, where permitted,
 * owner), so a reader sees the old or the new file, never half of one. Refuses when the file
 * changed since it was read (someone edited it meanwhile).
 */
async function replaceAtomically(path: string, read: string, text: string): Promise<void> {
  const info = await lstat(path);
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', info.mode & 0o7777);
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.chmod(info.mode & 0o7777);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chown(temporary, info.uid, info.gid).catch(() => undefined);
    if (decode(path, await readFile(path)) !== read) throw new Error(`${path}: changed while it was being edited`);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Compose files on this host (the hub's Node entry, an edge agent): the multi-file rule and the
 * text rewrite are shared/compose's; this reads, backs up (`<file>.<UTC stamp>.bak`, the newest 5
 * kept) and writes atomically. Never rejects: a problem is a `skipped` outcome.
 */
export function createComposeFileEditor(options: ComposeFileEditorOptions = {}): ComposeFileEditor {
  const now = options.now ?? Date.now;
  const keep = options.keepBackups ?? DEFAULT_KEEP_BACKUPS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  return {
    async setServiceImage(change: ComposeImageChange): Promise<ComposeRewriteOutcome> {
      const fallbackPath = change.files.at(-1) ?? '';
      try {
        const chosen = await rewriteProject(change, (path) => readComposeFile(path, maxBytes));
        const { path } = chosen;
        if ('error' in chosen) return { path, status: 'skipped', reason: chosen.error };
        const { rewrite, text } = chosen;
        if (rewrite.status === 'unchanged') return { path, status: 'unchanged', reason: rewrite.reason };
        if (rewrite.status !== 'rewritten') return { path, status: 'skipped', reason: rewrite.reason };
        const { mode } = await lstat(path);
        const backupPath = await writeBackup(path, mode & 0o7777, now());
        try {
          await replaceAtomically(path, text ?? '', rewrite.text);
        } catch (error) {
          await rm(backupPath, { force: true });
          throw error;
        }
        await pruneBackups(path, keep).catch(() => undefined);
        return { path, backupPath, status: 'rewritten' };
      } catch (error) {
        return { path: fallbackPath, status: 'skipped', reason: errorMessage(error) };
      }
    },
  };
}
