import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScheduledRunSchema } from '../../hub/src/store/schedule-store';
import { AuditEntrySchema } from '../../shared/schemas/audit-entry';
import { NOTIFICATION_RULE_IDS, NotificationRuleSchema } from '../../shared/schemas/notification-rule';
import { SettingsSchema } from '../../shared/schemas/settings';
import { startHubProcess } from '../support/hub-process';

const ROUNDS = 6;
const MIN_WRITES_PER_ROUND = 15;

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** Fires PATCHes without pause until the hub dies under them; `progress.sent` counts the answered ones. */
async function writeBurst(url: string, round: number, progress: { sent: number }): Promise<number> {
  let sent = 0;
  const worker = async (lane: number) => {
    for (let i = 0; ; i++) {
      const id = NOTIFICATION_RULE_IDS[(lane + i) % NOTIFICATION_RULE_IDS.length];
      const body =
        i % 3 === 0
          ? { updateMode: (['notify', 'manual', 'auto'] as const)[(round + i) % 3] }
          : { enabled: i % 2 === 0, bellThreshold: (['all', 'major', 'minor', 'patch'] as const)[i % 4], triggers: [] };
      const path = i % 3 === 0 ? '/api/v1/settings' : `/api/v1/notifications/${id}`;
      try {
        await fetch(`${url}${path}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        sent++;
        progress.sent = sent;
      } catch {
        return; // the hub was killed
      }
    }
  };
  await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(worker));
  return sent;
}

describe('crash consistency of the fs store (kill -9 during a burst of writes)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'hub-crash-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it(`leaves every record old or new, never torn, over ${ROUNDS} kills`, async () => {
    let totalWrites = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const hub = await startHubProcess({ DD_STORE_PATH: dataDir });
      // The hub must come back after every kill with what it had.
      expect((await fetch(`${hub.url}/health`)).status).toBe(200);
      const progress = { sent: 0 };
      const burst = writeBurst(hub.url, round, progress);
      // Killed in the middle of the burst: after some writes have landed (a loaded machine answers
      // slowly, so a fixed delay alone could kill it before any), then at a varying moment.
      const since = Date.now();
      while (progress.sent < MIN_WRITES_PER_ROUND && Date.now() - since < 20_000)
        await new Promise((resolve) => setTimeout(resolve, 5));
      await new Promise((resolve) => setTimeout(resolve, (round * 37) % 160));
      expect(await hub.kill('SIGKILL')).toBe('SIGKILL');
      totalWrites += await burst;

      for (const file of await listFiles(dataDir)) {
        const key = relative(dataDir, file);
        if (key.split('/').some((part) => part.startsWith('.'))) continue; // temp files of interrupted writes
        const parsed = JSON.parse(await readFile(file, 'utf8'));
        // Besides the records written by the burst, the schedules the hub stores at start (hourly jobs).
        // and the audit entries of settings changes.
        const schema = key.startsWith('settings')
          ? SettingsSchema
          : key.startsWith('schedule')
            ? ScheduledRunSchema
            : key.startsWith('audit')
              ? AuditEntrySchema
              : NotificationRuleSchema;
        expect(v.safeParse(schema, parsed).success, `${key} holds ${JSON.stringify(parsed)}`).toBe(true);
      }
    }
    expect(totalWrites).toBeGreaterThan(ROUNDS * 10);

    const last = await startHubProcess({ DD_STORE_PATH: dataDir });
    const settings = await (await fetch(`${last.url}/api/v1/settings`)).json();
    expect(v.safeParse(SettingsSchema, settings).success).toBe(true);
    const rules = await (await fetch(`${last.url}/api/v1/notifications`)).json();
    expect(rules.total).toBe(8);
    // Nothing was logged as a corrupt record on the way back up.
    expect(last.stdout.join('\n')).not.toContain('failed validation');
    expect(await last.kill('SIGTERM')).toBe(0);
  }, 120_000);
});
