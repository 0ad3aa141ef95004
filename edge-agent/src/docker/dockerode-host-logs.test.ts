import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DockerHost,
  type DockerLogLine,
  type DockerLogOptions,
  DockerNotFoundError,
} from '../../../shared/docker/docker-host';
import { startDockerd, type TestDockerd } from '../../../test/support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../../../test/support/docker/test-images';
import { createDockerHost } from './index';

const BASE = 'localhost/busybox:logs';
const ALL: DockerLogOptions = { stdout: true, stderr: true, timestamps: true, follow: false };
// RFC 3339 with nanoseconds, as Docker writes it.
const DOCKER_TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/;

async function collect(
  lines: AsyncIterable<DockerLogLine>,
  limit = Number.POSITIVE_INFINITY,
): Promise<DockerLogLine[]> {
  const out: DockerLogLine[] = [];
  for await (const line of lines) {
    out.push(line);
    if (out.length >= limit) break;
  }
  return out;
}

describe('DockerHost.logs against a real dockerd', () => {
  let dockerd: TestDockerd;
  let host: DockerHost;
  let docker: Docker;
  let finished: string;
  const signal = new AbortController().signal;

  /** A container that has written its output and exited, so its log is complete. */
  async function finishedContainer(name: string, script: string, tty = false): Promise<string> {
    const id = await runContainer(docker, { name, image: BASE, cmd: ['sh', '-c', script], tty });
    await docker.getContainer(id).wait();
    return id;
  }

  beforeAll(async () => {
    dockerd = await startDockerd();
    ({ dockerHost: host, docker } = dockerd);
    await importBusyboxImage(docker, { repository: 'localhost/busybox', tag: 'logs' });
    finished = await finishedContainer('finished', 'echo out1; echo err1 >&2; echo out2; printf "no newline"');
  });
  afterAll(() => dockerd?.stop());

  it('separates stdout from stderr and parses the timestamps', async () => {
    const before = Date.now();
    const lines = await collect(host.logs(finished, ALL, signal));
    expect(lines.filter((l) => l.stream === 'stdout').map((l) => l.line)).toEqual(['out1', 'out2', 'no newline']);
    expect(lines.filter((l) => l.stream === 'stderr').map((l) => l.line)).toEqual(['err1']);
    for (const { ts } of lines) {
      expect(ts).toMatch(DOCKER_TS);
      expect(Date.parse(ts)).toBeLessThanOrEqual(before);
    }
  });

  it('selects streams, and leaves the line whole without timestamps', async () => {
    const stderr = await collect(host.logs(finished, { ...ALL, stdout: false, timestamps: false }, signal));
    expect(stderr).toEqual([{ stream: 'stderr', ts: '', line: 'err1' }]);
  });

  it('honours tail and since', async () => {
    // One stream only: Docker writes stdout and stderr from two copiers, so their order in the log
    // (which tail counts in) may differ from the order the container wrote them.
    const id = await finishedContainer('tail', 'echo a; echo b; echo c');
    const last = await collect(host.logs(id, { ...ALL, tail: 2 }, signal));
    expect(last.map((l) => l.line)).toEqual(['b', 'c']);
    const future = Math.ceil(Date.now() / 1000) + 60;
    expect(await collect(host.logs(finished, { ...ALL, since: future }, signal))).toEqual([]);
  });

  it('follows a running container until the signal aborts', async () => {
    const id = await runContainer(docker, {
      name: 'follower',
      image: BASE,
      cmd: ['sh', '-c', 'i=0; while :; do echo "tick $i"; i=$((i+1)); sleep 0.1; done'],
    });
    const controller = new AbortController();
    const seen: string[] = [];
    for await (const { line } of host.logs(id, { ...ALL, follow: true }, controller.signal)) {
      seen.push(line);
      // Lines written after the call arrive on the open stream; the loop then ends without an error.
      if (seen.length === 3) controller.abort();
    }
    expect(seen).toEqual(['tick 0', 'tick 1', 'tick 2']);
  });

  it('ends a followed log when the container exits', async () => {
    const id = await runContainer(docker, {
      name: 'short-lived',
      image: BASE,
      cmd: ['sh', '-c', 'echo first; sleep 0.5; echo last'],
    });
    const lines = await collect(host.logs(id, { ...ALL, follow: true }, signal));
    expect(lines.map((l) => l.line)).toEqual(['first', 'last']);
  });

  it('reads a TTY container raw: one stream, CR LF line ends', async () => {
    const id = await finishedContainer('tty', 'echo tty-out; echo tty-err >&2', true);
    const lines = await collect(host.logs(id, ALL, signal));
    expect(lines.map(({ stream, line }) => ({ stream, line }))).toEqual([
      { stream: 'stdout', line: 'tty-out' },
      { stream: 'stdout', line: 'tty-err' },
    ]);
    expect(lines[0]?.ts).toMatch(DOCKER_TS);
  });

  it('keeps a line longer than 16 KiB whole (Docker stores it as partial messages)', async () => {
    const id = await finishedContainer('long-line', 'head -c 40000 /dev/zero | tr "\\0" x; echo; echo after');
    const lines = await collect(host.logs(id, ALL, signal));
    expect(lines.map((l) => l.line.length)).toEqual([40_000, 5]);
    expect(lines[0]?.line).toMatch(/^x+$/);
  });

  it('throws DockerNotFoundError for an unknown container', async () => {
    await expect(collect(host.logs('no-such-container', ALL, signal))).rejects.toBeInstanceOf(DockerNotFoundError);
  });

  it('ends an open log stream when the host is closed', async () => {
    const id = await runContainer(docker, { name: 'closing', image: BASE, cmd: ['sh', '-c', 'echo up; sleep 1000'] });
    const own = createDockerHost({ socketPath: dockerd.socketPath });
    const seen: string[] = [];
    for await (const { line } of own.logs(id, { ...ALL, follow: true }, signal)) {
      seen.push(line);
      await own.close();
    }
    expect(seen).toEqual(['up']);
  });
});
