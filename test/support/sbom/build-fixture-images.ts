/**
 * The SBOM fixture images built for real on a test dockerd with `docker build` (the classic builder
 * of Docker 20.10) on an imported busybox base: the Debian-like one in three layers (files, a
 * `RUN rm -rf` whose whiteout deletes `@babel`, a new dpkg status), the Alpine-like one in one,
 * the Rocky-like one with the real rpm database of rpm-fixture.ts (built on demand: it needs rpm).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestDockerd } from '../docker/start-dockerd';
import { importBusyboxImage } from '../docker/test-images';
import type { GoProgram } from './go-program';
import { ALPINE_FILES, DEBIAN_DELETED, DEBIAN_LAYER_3, debianFiles, type FileTree } from './image-fixture';
import { rpmFixture } from './rpm-fixture';

export const DEBIAN_IMAGE = 'sbom/debian-like:1';
export const ALPINE_IMAGE = 'sbom/alpine-like:1';
export const RPM_IMAGE = 'sbom/rocky-like:1';
export const RPM_IMAGE_OS_RELEASE = 'NAME="Rocky Linux"\nID="rocky"\nVERSION_ID="9.3"\n';
const BASE = 'sbom/base:1';

function writeTree(root: string, tree: FileTree): void {
  for (const [path, file] of Object.entries(tree)) {
    const target = join(root, path);
    mkdirSync(dirname(target), { recursive: true });
    if (file.symlink !== undefined) symlinkSync(file.symlink, target);
    else writeFileSync(target, file.content ?? '', { mode: file.mode ?? 0o644 });
  }
}

async function build(dockerd: TestDockerd, tag: string, dockerfile: string, trees: Record<string, FileTree>) {
  const context = mkdtempSync(join(tmpdir(), 'sbom-context-'));
  try {
    for (const [name, tree] of Object.entries(trees)) writeTree(join(context, name), tree);
    writeFileSync(join(context, 'Dockerfile'), dockerfile);
    const result = await dockerd.cli(['build', '--network', 'none', '-t', tag, context]);
    if (result.code !== 0) throw new Error(`docker build ${tag} failed:\n${result.stdout}\n${result.stderr}`);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

export async function buildFixtureImages(dockerd: TestDockerd, go: GoProgram): Promise<void> {
  await importBusyboxImage(dockerd.docker, { repository: 'sbom/base', tag: '1', cmd: ['sleep', '3600'] });
  await build(dockerd, DEBIAN_IMAGE, `FROM ${BASE}\nCOPY layer1/ /\nRUN rm -rf /${DEBIAN_DELETED}\nCOPY layer3/ /\n`, {
    layer1: debianFiles(go),
    layer3: DEBIAN_LAYER_3,
  });
  await build(dockerd, ALPINE_IMAGE, `FROM ${BASE}\nCOPY layer1/ /\n`, { layer1: ALPINE_FILES });
}

/** Needs `buildFixtureImages` first (its base image). */
export async function buildRpmImage(dockerd: TestDockerd): Promise<void> {
  await build(dockerd, RPM_IMAGE, `FROM ${BASE}\nCOPY layer1/ /\n`, {
    layer1: {
      'etc/os-release': { content: RPM_IMAGE_OS_RELEASE },
      'var/lib/rpm/rpmdb.sqlite': { content: rpmFixture().sqlite },
    },
  });
}
