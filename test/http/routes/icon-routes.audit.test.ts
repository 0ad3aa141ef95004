/**
 * DELETE /api/v1/icons/cache leaves a trace (issue 33 item 10): an `icon-cache-cleared` audit entry
 * and a log line, each naming who emptied the cache. The cache's own behaviour: icon-routes.test.ts.
 */
import { expect, it } from 'vitest';
import { describeRuntimeMatrix, expectJsonError, jsonInit } from '../../support/hub-harness';

describeRuntimeMatrix('icon cache clearing, audited', (client, mode) => {
  it('audits and logs a clear with the caller; a key without admin is refused and leaves no entry', async () => {
    const create = async (scopes: string[]) =>
      (await client().request('/api/v1/api-keys', jsonInit('POST', { name: 'icons', scopes }))).json();
    const reader = await create(['read']);
    await expectJsonError(
      await client().request('/api/v1/icons/cache', {
        method: 'DELETE',
        headers: { authorization: `Bearer ${reader.apiKey}` },
      }),
      403,
    );
    const admin = await create(['admin']);
    const cleared = await client().request('/api/v1/icons/cache', {
      method: 'DELETE',
      headers: { authorization: `Bearer ${admin.apiKey}` },
    });
    expect(cleared.status).toBe(200);
    expect(await cleared.json()).toEqual({ cleared: 0 });
    const audit = await (await client().request('/api/v1/audit?action=icon-cache-cleared')).json();
    expect(audit.data).toEqual([
      expect.objectContaining({
        action: 'icon-cache-cleared',
        status: 'success',
        details: `icon cache cleared by api-key:${admin.keyId}: 0 entries`,
      }),
    ]);
    const log: { msg: string }[] = await (await client().request('/api/v1/log/entries')).json();
    expect(log.filter((entry) => entry.msg === 'icon cache cleared')).toHaveLength(1);
    // Under workerd the sink's output arrives on its own time; the ring above has the line.
    if (mode !== 'workerd')
      expect(client().logged.find(({ entry }) => entry.msg === 'icon cache cleared')?.fields).toEqual({
        by: `api-key:${admin.keyId}`,
        cleared: 0,
      });
  });
});
