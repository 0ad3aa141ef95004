import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { createAuditStore } from './audit-store';
import { createNotificationRuleStore } from './notification-rule-store';
import { createSettingsStore } from './settings-store';

const DAY = 86_400_000;

function logger() {
  const ring = createLogRing();
  return { ring, logger: createLogger({ level: 'info', ring, sink: silentSink }) };
}

describe('audit store', () => {
  it('keeps at most maxEntries, deleting the oldest records from storage too', async () => {
    const storage = createStorage();
    let now = Date.UTC(2026, 0, 1);
    const audit = createAuditStore(storage, { retentionDays: 90, maxEntries: 100 }, () => now, logger().logger);
    await audit.load();
    for (let i = 0; i < 130; i++) {
      now += 1000;
      await audit.append({ action: 'container-added', details: `n${i}` });
    }
    const page = audit.query({ offset: 0, limit: 200 });
    expect(page.total).toBe(100);
    expect(page.data[0]?.details).toBe('n129');
    expect(page.data.at(-1)?.details).toBe('n30');
    expect(await storage.getKeys('audit')).toHaveLength(100);
  });

  it('drops entries older than the retention window, at load and on append', async () => {
    const storage = createStorage();
    let now = Date.UTC(2026, 0, 1);
    const first = createAuditStore(storage, { retentionDays: 10, maxEntries: 1000 }, () => now, logger().logger);
    await first.load();
    await first.append({ action: 'container-added', details: 'old' });
    now += 5 * DAY;
    await first.append({ action: 'container-removed', details: 'recent' });
    now += 6 * DAY;
    const reloaded = createAuditStore(storage, { retentionDays: 10, maxEntries: 1000 }, () => now, logger().logger);
    await reloaded.load();
    expect(reloaded.query({ offset: 0, limit: 10 }).data.map((entry) => entry.details)).toEqual(['recent']);
    expect(await storage.getKeys('audit')).toHaveLength(1);
  });

  it('drops them on prune too, without any append (the scheduled audit.retention job)', async () => {
    const storage = createStorage();
    let now = Date.UTC(2026, 0, 1);
    const audit = createAuditStore(storage, { retentionDays: 10, maxEntries: 1000 }, () => now, logger().logger);
    await audit.load();
    await audit.append({ action: 'container-added', details: 'old' });
    now += 11 * DAY;
    expect(audit.query({ offset: 0, limit: 10 }).total).toBe(1);
    await audit.prune();
    expect(audit.query({ offset: 0, limit: 10 }).total).toBe(0);
    expect(await storage.getKeys('audit')).toEqual([]);
  });

  it('reloads entries in time order and skips a corrupt record with an error log', async () => {
    const storage = createStorage();
    let now = Date.UTC(2026, 0, 1);
    const { ring, logger: log } = logger();
    const audit = createAuditStore(storage, { retentionDays: 90, maxEntries: 1000 }, () => now++, log);
    await audit.load();
    for (const action of ['container-added', 'update-available', 'container-removed'] as const)
      await audit.append({ action });
    await storage.setItem('audit:zzzz-broken', { id: 'zzzz-broken', action: 'not-an-action' });
    const again = createAuditStore(storage, { retentionDays: 90, maxEntries: 1000 }, () => now, log);
    await again.load();
    expect(again.recent(10).map((entry) => entry.action)).toEqual([
      'container-removed',
      'update-available',
      'container-added',
    ]);
    expect(ring.query({ level: 'error' }).map((entry) => entry.msg)).toEqual([
      'stored record failed validation; ignoring it',
    ]);
  });
});

describe('audit store: entries appended together', () => {
  it('shares records of up to 64 entries, deletes one only once all its entries are dropped, and loads them back', async () => {
    const storage = createStorage();
    let now = Date.UTC(2026, 0, 1);
    const audit = createAuditStore(storage, { retentionDays: 90, maxEntries: 150 }, () => now, logger().logger);
    await audit.load();
    const batch = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({ action: 'container-added' as const, details: `n${from + i}` }));
    await audit.appendMany(batch(0, 100)); // records of 64 and 36
    now += 1000;
    expect(await storage.getKeys('audit-batches')).toHaveLength(2);
    await audit.appendMany(batch(100, 70)); // 170 entries: the 20 oldest dropped, their record kept
    expect(audit.query({ offset: 0, limit: 500 }).total).toBe(150);
    expect(await storage.getKeys('audit-batches')).toHaveLength(4);
    now += 1000;
    await audit.appendMany(batch(170, 44)); // 64 more dropped: the first record goes
    expect(await storage.getKeys('audit-batches')).toHaveLength(4);
    expect(await storage.getKeys('audit')).toHaveLength(0);

    const again = createAuditStore(storage, { retentionDays: 90, maxEntries: 150 }, () => now, logger().logger);
    await again.load();
    const details = again.query({ offset: 0, limit: 500 }).data.map((entry) => entry.details);
    expect(details).toEqual(Array.from({ length: 150 }, (_, i) => `n${213 - i}`));
  });

  it('keeps queries right after retention has dropped thousands of entries (the trail compacted)', async () => {
    const storage = createStorage();
    const now = Date.UTC(2026, 0, 1);
    const audit = createAuditStore(storage, { retentionDays: 90, maxEntries: 100 }, () => now, logger().logger);
    for (let round = 0; round < 40; round++)
      await audit.appendMany(
        Array.from({ length: 100 }, (_, i) => ({ action: 'container-added' as const, details: `r${round}-${i}` })),
      );
    const page = audit.query({ offset: 0, limit: 500 });
    expect(page.total).toBe(100);
    expect(page.data.map((entry) => entry.details)).toEqual(Array.from({ length: 100 }, (_, i) => `r39-${99 - i}`));
    expect(audit.recent(3).map((entry) => entry.details)).toEqual(['r39-99', 'r39-98', 'r39-97']);
    // Round 39's two records; every older record deleted with its last entry.
    expect(await storage.getKeys('audit-batches')).toHaveLength(2);
  });

  it('skips a corrupt entry of a shared record with an error log and keeps the others', async () => {
    const storage = createStorage();
    const now = Date.UTC(2026, 0, 1);
    const audit = createAuditStore(storage, { retentionDays: 90, maxEntries: 1000 }, () => now, logger().logger);
    await audit.appendMany([{ action: 'container-added' }, { action: 'container-removed' }]);
    const [key] = await storage.getKeys('audit-batches');
    const stored = (await storage.getItem(key as string)) as { entries: unknown[] };
    stored.entries.push({ id: 'zzzz', action: 'not-an-action' });
    await storage.setItem(key as string, stored as never);

    const { ring, logger: log } = logger();
    const again = createAuditStore(storage, { retentionDays: 90, maxEntries: 1000 }, () => now, log);
    await again.load();
    expect(again.recent(10).map((entry) => entry.action)).toEqual(['container-removed', 'container-added']);
    expect(ring.query({ level: 'error' }).map((entry) => entry.msg)).toEqual([
      'stored audit entry failed validation; ignoring it',
    ]);
  });
});

describe('settings and notification rule stores', () => {
  it('persist what is patched and load it back in a new instance', async () => {
    const storage = createStorage();
    const settings = createSettingsStore(storage, logger().logger);
    await settings.load();
    await settings.patch({ updateMode: 'auto' });
    const rules = createNotificationRuleStore(storage, logger().logger);
    await rules.load();
    await rules.patch('maturity-cleared', { enabled: false, templates: { 'smtp.ops': { simpleTitle: 'x' } } });

    const settingsAgain = createSettingsStore(storage, logger().logger);
    await settingsAgain.load();
    expect(settingsAgain.get()).toEqual({ internetlessMode: false, updateMode: 'auto', approvalRequired: false });
    const rulesAgain = createNotificationRuleStore(storage, logger().logger);
    await rulesAgain.load();
    expect(rulesAgain.get('maturity-cleared')).toMatchObject({
      enabled: false,
      templates: { 'smtp.ops': { simpleTitle: 'x' } },
    });
    expect(rulesAgain.get('update-available')).toMatchObject({ enabled: true });
  });

  it('falls back to defaults when a stored record is corrupt, and never hands out internal state', async () => {
    const storage = createStorage();
    await storage.setItem('settings:global', { updateMode: 'sideways' });
    const settings = createSettingsStore(storage, logger().logger);
    await settings.load();
    expect(settings.get()).toEqual({ internetlessMode: false, updateMode: 'manual', approvalRequired: false });
    const rules = createNotificationRuleStore(storage, logger().logger);
    await rules.load();
    const copy = rules.get('update-failed');
    copy?.triggers.push('mutated.outside');
    expect(rules.get('update-failed')?.triggers).toEqual([]);
  });
});
