import { describe, expect, it } from 'vitest';
import type { DockerContainerDetails } from '../../../shared/docker/docker-host';
import { SnapshotAssembler } from './snapshot-assembler';

const container = (id: string): DockerContainerDetails => ({
  id,
  name: id,
  image: 'nginx:1',
  imageId: 'sha256:1',
  state: 'running',
  labels: {},
  createdAt: 0,
  env: [],
  restartCount: 0,
});
const image = { id: 'sha256:1', repoTags: [], repoDigests: [], os: 'linux', architecture: 'amd64' };
const part = (partNo: number, last: boolean, ids: string[], syncId = 's1', operationId?: string) => ({
  type: 'snapshot' as const,
  watcher: 'local',
  syncId,
  ...(operationId !== undefined && { operationId }),
  part: partNo,
  last,
  containers: ids.map(container),
  images: partNo === 0 ? [image] : [],
});

describe('SnapshotAssembler', () => {
  it('puts the parts of one sync together and completes on the last', () => {
    const assembler = new SnapshotAssembler();
    expect(assembler.add(part(0, false, ['a', 'b'], 's1', 'op'))).toEqual({ pending: true });
    const step = assembler.add(part(1, true, ['c'], 's1'));
    expect(step).toMatchObject({ done: { watcher: 'local', syncId: 's1', operationId: 'op', images: [image] } });
    expect('done' in step && step.done.containers.map((c) => c.id)).toEqual(['a', 'b', 'c']);
  });

  it('lets a new sync replace one in progress, and refuses parts out of order or of another sync', () => {
    const assembler = new SnapshotAssembler();
    assembler.add(part(0, false, ['a']));
    expect(assembler.add(part(0, true, ['z'], 's2'))).toMatchObject({ done: { syncId: 's2' } });
    expect(assembler.add(part(1, true, ['b']))).toMatchObject({ error: expect.stringContaining('out of order') });
    assembler.add(part(0, false, ['a'], 's3'));
    expect(assembler.add(part(2, true, ['b'], 's3'))).toHaveProperty('error');
    assembler.add(part(0, false, ['a'], 's4'));
    expect(assembler.add(part(1, true, ['b'], 's5'))).toHaveProperty('error');
  });

  it('bounds what one sync may hold', () => {
    const assembler = new SnapshotAssembler(3);
    assembler.add(part(0, false, ['a', 'b']));
    expect(assembler.add(part(1, false, ['c', 'd']))).toMatchObject({ error: expect.stringContaining('exceeds 3') });
  });
});
