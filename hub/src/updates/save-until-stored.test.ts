import { describe, expect, it } from 'vitest';
import type { UpdateOperation } from '../../../shared/update-engine';
import { SupersededOperationError } from './operation-store';
import { saveUntilStored } from './save-until-stored';

const operation = { id: 'op-1', status: 'succeeded', phase: 'succeeded' } as UpdateOperation;
const full = () => Object.assign(new Error('write failed'), { code: 'ENOSPC' });

describe('saveUntilStored', () => {
  it('writes again after a full disk until the store takes it', async () => {
    let calls = 0;
    const warnings: string[] = [];
    await saveUntilStored(
      async () => {
        calls += 1;
        if (calls < 3) throw full();
      },
      operation,
      { signal: new AbortController().signal, warn: (message) => warnings.push(message), delaysMs: [1] },
    );
    expect(calls).toBe(3);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('op-1 (succeeded, succeeded) not stored, trying again');
  });

  it('gives up when the hub stops, with the write error', async () => {
    const stop = new AbortController();
    const saving = saveUntilStored(
      async () => {
        throw full();
      },
      operation,
      { signal: stop.signal, warn: () => stop.abort(), delaysMs: [60_000] },
    );
    await expect(saving).rejects.toThrow('write failed');
  });

  it('does not retry a write to an operation already settled', async () => {
    let calls = 0;
    const saving = saveUntilStored(
      async () => {
        calls += 1;
        throw new SupersededOperationError('op-1');
      },
      operation,
      { signal: new AbortController().signal, warn: () => undefined, delaysMs: [1] },
    );
    await expect(saving).rejects.toBeInstanceOf(SupersededOperationError);
    expect(calls).toBe(1);
  });
});
