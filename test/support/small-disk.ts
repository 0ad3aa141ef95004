import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A small tmpfs of its own (the tests run as root), so a store on it can really run out of space:
 * `fill()` writes a ballast file until the kernel answers ENOSPC, `free()` deletes it. Only this
 * mount fills up; the machine's disks are never touched.
 */
export interface SmallDisk {
  /** The mount point: give it (or a directory under it) to DD_STORE_PATH. */
  path: string;
  /** Bytes of ballast written; the disk is full afterwards. */
  fill(): number;
  free(): void;
  /** Unmounts and removes the mount point; safe to call twice. */
  close(): void;
}

const BALLAST = '.ballast';
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

/** Throws when mounting is impossible (not root, no tmpfs), so a caller can say so instead of faking it. */
export function mountSmallDisk(sizeMiB: number): SmallDisk {
  const path = mkdtempSync(join(tmpdir(), 'dockwatch-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0700`, 'tmpfs', path], { stdio: 'pipe' });
  } catch (error) {
    rmdirSync(path);
    throw new Error(`small disk: cannot mount a tmpfs at ${path}: ${(error as Error).message}`);
  }
  let mounted = true;
  const ballast = join(path, BALLAST);
  return {
    path,
    fill() {
      const fd = openSync(ballast, 'a');
      let written = 0;
      try {
        for (;;) {
          // A short write means the last bytes fit; the next one fails with ENOSPC.
          written += writeSync(fd, CHUNK);
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        closeSync(fd);
      }
      // Finish off the last partial page so nothing, not even a small record, fits any more.
      const small = openSync(ballast, 'a');
      try {
        for (;;) written += writeSync(small, Buffer.alloc(1, 0x61));
      } catch {
        // ENOSPC: full to the byte.
      } finally {
        closeSync(small);
      }
      return written;
    },
    free() {
      rmSync(ballast, { force: true });
    },
    close() {
      if (!mounted) return;
      mounted = false;
      execFileSync('umount', ['--lazy', path], { stdio: 'pipe' });
      rmdirSync(path);
    },
  };
}
