import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { containerIdFromMountinfo, readSelfContainerId } from './self-container';

const ID = 'f'.repeat(12) + '0123456789abcdef'.repeat(3) + '0'.repeat(4);

/** Lines as a container under dockerd 24 (overlay2) shows them. */
const IN_CONTAINER = [
  '1012 955 0:112 / / rw,relatime master:412 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/ABC',
  '1013 1012 0:115 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw',
  `1029 1012 8:1 /var/lib/docker/containers/${ID}/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/sda1 rw`,
  `1030 1012 8:1 /var/lib/docker/containers/${ID}/hostname /etc/hostname rw,relatime - ext4 /dev/sda1 rw`,
].join('\n');

describe('self container id', () => {
  it('is read from the mounts Docker makes from the container directory', () => {
    expect(ID).toHaveLength(64);
    expect(containerIdFromMountinfo(IN_CONTAINER)).toBe(ID);
  });

  it('is undefined on a host, for a volume that merely holds other containers, and for an unreadable file', async () => {
    expect(containerIdFromMountinfo('22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw')).toBeUndefined();
    // A bind mount of another daemon's data root names container directories, not this container's own files.
    expect(
      containerIdFromMountinfo(`40 22 8:1 /srv/docker/containers/${ID}/config.v2.json /data/c rw - ext4 /dev/sda1 rw`),
    ).toBeUndefined();
    const dir = await mkdtemp(join(tmpdir(), 'dockwatch-mountinfo-'));
    try {
      await writeFile(join(dir, 'mountinfo'), IN_CONTAINER);
      expect(readSelfContainerId(join(dir, 'mountinfo'))).toBe(ID);
      expect(readSelfContainerId(join(dir, 'missing'))).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
