import { expect, it } from 'vitest';
import { describeRuntimeMatrix, expectJsonError, jsonInit } from '../../support/hub-harness';

describeRuntimeMatrix('settings', (client, mode) => {
  it('starts with the defaults of a fresh install', async () => {
    const response = await client().request('/api/v1/settings');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ internetlessMode: false, updateMode: 'manual', approvalRequired: false });
  });

  it('PATCH changes only the given fields and returns the whole object', async () => {
    const patched = await client().request('/api/v1/settings', jsonInit('PATCH', { updateMode: 'notify' }));
    expect(patched.status).toBe(200);
    expect(await patched.json()).toEqual({ internetlessMode: false, updateMode: 'notify', approvalRequired: false });
    const again = await client().request('/api/v1/settings', jsonInit('PATCH', { internetlessMode: true }));
    expect(await again.json()).toEqual({ internetlessMode: true, updateMode: 'notify', approvalRequired: false });
    const approval = await client().request('/api/v1/settings', jsonInit('PATCH', { approvalRequired: true }));
    expect(await approval.json()).toEqual({ internetlessMode: true, updateMode: 'notify', approvalRequired: true });
    expect(await (await client().request('/api/v1/settings')).json()).toEqual({
      internetlessMode: true,
      updateMode: 'notify',
      approvalRequired: true,
    });
  });

  it('PUT is a deprecated alias with Deprecation and Sunset headers', async () => {
    const response = await client().request('/api/v1/settings', jsonInit('PUT', { updateMode: 'auto' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(response.headers.get('sunset')).toMatch(/GMT$/);
    expect((await response.json()).updateMode).toBe('auto');
  });

  it('refuses bad values and unknown fields, and loses nothing', async () => {
    const before = await (await client().request('/api/v1/settings')).json();
    for (const bad of [
      { updateMode: 'sometimes' },
      { internetlessMode: 'yes' },
      { updateMod: 'auto' },
      [],
      42,
      null,
      'auto',
    ]) {
      const body = await expectJsonError(
        await client().request('/api/v1/settings', jsonInit('PATCH', JSON.stringify(bad))),
        400,
      );
      expect(body.error).toMatch(/invalid request body/i);
    }
    expect(await (await client().request('/api/v1/settings')).json()).toEqual(before);
  });

  // Issue 33 item 10: a settings change wrote neither an audit entry nor a log line.
  it('audits each change (settings-changed) and logs it, naming who made it; a write that changes nothing leaves no entry', async () => {
    const key = await (
      await client().request('/api/v1/api-keys', jsonInit('POST', { name: 'settings-bot', scopes: ['settings:write'] }))
    ).json();
    const asKey = { authorization: `Bearer ${key.apiKey}` };
    const current = await (await client().request('/api/v1/settings')).json();
    const next = current.updateMode === 'auto' ? 'notify' : 'auto';
    const patched = await client().request('/api/v1/settings', jsonInit('PATCH', { updateMode: next }, asKey));
    expect(patched.status).toBe(200);
    expect((await client().request('/api/v1/settings', jsonInit('PATCH', { updateMode: next }, asKey))).status).toBe(
      200,
    );
    const audit = await (await client().request('/api/v1/audit?action=settings-changed')).json();
    // Earlier cases of this suite changed settings too (anonymously): this key's entries only.
    const by = `api-key:${key.keyId}`;
    expect(audit.data.filter((entry: { details: string }) => entry.details.includes(by))).toEqual([
      expect.objectContaining({
        action: 'settings-changed',
        status: 'success',
        details: `settings changed by ${by}: updateMode ${current.updateMode} → ${next}`,
      }),
    ]);
    const log: { msg: string }[] = await (await client().request('/api/v1/log/entries')).json();
    expect(log.map((entry) => entry.msg)).toContain('settings changed');
    // The line's fields (who, what) reach the sink; under workerd its output arrives on its own time.
    if (mode !== 'workerd')
      expect(
        client()
          .logged.filter(({ entry, fields }) => entry.msg === 'settings changed' && fields?.['by'] === by)
          .map(({ fields }) => fields),
      ).toEqual([{ by, changes: [`updateMode ${current.updateMode} → ${next}`] }]);
  });

  it('applies concurrent PATCHes one after another, ending with one of them', async () => {
    const modes = ['notify', 'manual', 'auto', 'notify', 'auto'] as const;
    const results = await Promise.all(
      modes.map((mode) => client().request('/api/v1/settings', jsonInit('PATCH', { updateMode: mode }))),
    );
    expect(results.every((response) => response.status === 200)).toBe(true);
    const final = await (await client().request('/api/v1/settings')).json();
    expect(final.updateMode).toBe('auto');
  });
});
