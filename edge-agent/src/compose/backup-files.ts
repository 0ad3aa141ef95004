import { chmod, constants, copyFile, readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** `20261121T162501Z`: sorts by time as text. */
export function backupStamp(now: number): string {
  return new Date(now)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replaceAll('-', '')
    .replaceAll(':', '');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `<file>.<stamp>.bak`, or `<file>.<stamp>-<n>.bak` when two edits fall in one second. */
function backupPattern(file: string): RegExp {
  return new RegExp(`^${escapeRegExp(basename(file))}\\.(\\d{8}T\\d{6}Z)(?:-(\\d+))?\\.bak$`);
}

/** Copies the file beside itself with its mode, never over an existing backup. */
export async function writeBackup(file: string, mode: number, now: number): Promise<string> {
  const stem = `${file}.${backupStamp(now)}`;
  for (let attempt = 1; ; attempt++) {
    const target = attempt === 1 ? `${stem}.bak` : `${stem}-${attempt}.bak`;
    try {
      await copyFile(file, target, constants.COPYFILE_EXCL);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 100) continue;
      throw error;
    }
    await chmod(target, mode);
    return target;
  }
}

/** Keeps the newest `keep` backups of the file (by their stamps); returns the removed paths. */
export async function pruneBackups(file: string, keep: number): Promise<string[]> {
  const pattern = backupPattern(file);
  const directory = dirname(file);
  const backups = (await readdir(directory))
    .map((name) => ({ name, match: pattern.exec(name) }))
    .filter((entry): entry is { name: string; match: RegExpExecArray } => entry.match !== null)
    .map(({ name, match }) => ({ name, stamp: match[1] as string, counter: Number(match[2] ?? 1) }))
    .sort((a, b) => (a.stamp === b.stamp ? b.counter - a.counter : a.stamp < b.stamp ? 1 : -1));
  const removed = backups.slice(keep).map(({ name }) => join(directory, name));
  for (const path of removed) await rm(path, { force: true });
  return removed;
}
