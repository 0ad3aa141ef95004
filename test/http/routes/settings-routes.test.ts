import { expect, it } from 'vitest';
import { describeRuntimeMatrix, expectJsonError, jsonInit } from '../../support/hub-harness';

describeRuntimeMatrix('settings', (client) => {
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
