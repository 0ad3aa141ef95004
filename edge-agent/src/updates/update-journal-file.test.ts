import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UpdateOperation } from '../../../shared/update-engine';
import { UpdateJournalFile } from './update-journal-file';

const NOW = Date.parse('2026-01-02T00:00:00.000Z');
const operation = (id: string, patch: Partial<UpdateOperation> = {}): UpdateOperation => ({
  id,
  kind: 'update',
  source: 'api',
  containerName: 'web',
  containerId: 'a'.repeat(64),
  watcher: 'local',
  status: 'in-progress',
  phase: 'renamed',
  createdAt: '2026-01-01T23:00:00.000Z',
  updatedAt: '2026-01-01T23:59:00.000Z',
  targetImage: 'web:2',
  ...patch,
});

describe('UpdateJournalFile', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dd-journal-'));
    file = join(dir, 'agent.key.updates.json');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('keeps what was saved across a reopen (an agent restart), missing file = empty journal', async () => {
    const journal = await UpdateJournalFile.open(file, () => NOW);
    expect(journal.all()).toEqual([]);
    await journal.save(operation('one'));
    await journal.save(operation('one', { phase: 'new-created' }));
    const reopened = await UpdateJournalFile.open(file, () => NOW);
    expect(reopened.unsettled().map((entry) => entry.phase)).toEqual(['new-created']);
  });

  it('forgets settled operations older than a day, never unsettled ones', async () => {
    const journal = await UpdateJournalFile.open(file, () => NOW);
    await journal.save(
      operation('old', { status: 'succeeded', phase: 'succeeded', updatedAt: '2025-12-31T00:00:00.000Z' }),
    );
    await journal.save(operation('stuck', { updatedAt: '2025-12-30T00:00:00.000Z' }));
    await journal.save(operation('fresh', { status: 'failed', phase: 'prepare' }));
    expect(
      journal
        .all()
        .map((entry) => entry.id)
        .sort(),
    ).toEqual(['fresh', 'stuck']);
  });

  it('refuses a journal it cannot read rather than forgetting an operation to recover', async () => {
    await writeFile(file, JSON.stringify({ operations: [{ id: 1 }] }));
    await expect(UpdateJournalFile.open(file)).rejects.toThrow(/update journal/);
  });
});
