import { describe, expect, it } from 'vitest';
import { editConfigFileText, readConfigFileVariables, unmaskConfigFileText } from './config-file';
import { restoreMasked } from './masked-values';

const HOOK = 'http://ha.local:8123/api/webhook/hook-id-1?sig=s1&code=c1';
const current = new Map([
  ['DD_NOTIFICATION_HTTP_X_URL', HOOK],
  ['DD_NOTIFICATION_HTTP_X_BEARER', 'bearer-old-7f3a'],
  ['DD_NOTIFICATION_HTTP_X_SIMPLEBODY', 'see https://wiki.example/runbook'],
  ['DD_REGISTRY_CUSTOM_MINE_URL', 'https://registry.example'],
  ['DD_REGISTRY_CUSTOM_MINE_PASSWORD', 'registry-pw-1'],
  ['DD_RELEASE_NOTES_GITHUB_TOKEN', 'ghp-token-1'],
]);

describe('values sent back masked', () => {
  it('keeps what the file holds for a value sent as the read showed it, a URL’s masked form included', () => {
    const { values, problems } = restoreMasked(
      new Map([
        ['DD_NOTIFICATION_HTTP_X_URL', 'http://ha.local:8123/***'],
        ['DD_NOTIFICATION_HTTP_X_BEARER', '***'],
        ['DD_NOTIFICATION_HTTP_X_SIMPLEBODY', 'see https://wiki.example/***'],
      ]),
      current,
    );
    expect(problems).toEqual([]);
    expect(values.get('DD_NOTIFICATION_HTTP_X_URL')).toBe(HOOK);
    expect(values.get('DD_NOTIFICATION_HTTP_X_BEARER')).toBe('bearer-old-7f3a');
    expect(values.get('DD_NOTIFICATION_HTTP_X_SIMPLEBODY')).toBe('see https://wiki.example/runbook');
  });

  // Issue 33 item 3: a new URL with BEARER "***" kept the bearer, and the next run sent it to the new host.
  it('refuses a masked secret whose destination changed, naming the secret', () => {
    const { problems } = restoreMasked(
      new Map([
        ['DD_NOTIFICATION_HTTP_X_URL', 'https://elsewhere.example/collect'],
        ['DD_NOTIFICATION_HTTP_X_BEARER', '***'],
      ]),
      current,
    );
    expect(problems).toEqual([
      {
        variable: 'DD_NOTIFICATION_HTTP_X_BEARER',
        message: expect.stringContaining('DD_NOTIFICATION_HTTP_X_URL changed'),
      },
    ]);
    // The same with the secret sent again is fine, and so is a plain value beside a new URL.
    expect(
      restoreMasked(
        new Map([
          ['DD_NOTIFICATION_HTTP_X_URL', 'https://elsewhere.example/collect'],
          ['DD_NOTIFICATION_HTTP_X_BEARER', 'bearer-new-1'],
          ['DD_NOTIFICATION_HTTP_X_SIMPLEBODY', 'see https://wiki.example/***'],
        ]),
        current,
      ).problems,
    ).toEqual([]);
  });

  it('counts a registry endpoint, a forge API and a removed destination as changes', () => {
    const registry = restoreMasked(
      new Map([
        ['DD_REGISTRY_CUSTOM_MINE_URL', 'https://attacker.example'],
        ['DD_REGISTRY_CUSTOM_MINE_PASSWORD', '***'],
      ]),
      current,
    );
    expect(registry.problems.map((problem) => problem.variable)).toEqual(['DD_REGISTRY_CUSTOM_MINE_PASSWORD']);
    const forge = restoreMasked(
      new Map([
        ['DD_RELEASE_NOTES_GITHUB_TOKEN', '***'],
        ['DD_RELEASE_NOTES_GITHUB_API_URL', 'https://ghe.example/api/v3'],
      ]),
      current,
    );
    expect(forge.problems.map((problem) => problem.variable)).toEqual(['DD_RELEASE_NOTES_GITHUB_TOKEN']);
    // A named group is matched by the table, not by a shared prefix (…_HOSTS beside …_HOST_TOKENS).
    const hosts = restoreMasked(
      new Map([
        ['DD_RELEASE_NOTES_GITHUB_HOSTS', 'ghe.attacker.example'],
        ['DD_RELEASE_NOTES_GITHUB_HOST_TOKENS', '***'],
      ]),
      new Map([
        ['DD_RELEASE_NOTES_GITHUB_HOSTS', 'ghe.example'],
        ['DD_RELEASE_NOTES_GITHUB_HOST_TOKENS', 'ghe.example=tok-1'],
      ]),
    );
    expect(hosts.problems.map((problem) => problem.variable)).toEqual(['DD_RELEASE_NOTES_GITHUB_HOST_TOKENS']);
    // The URL left out: the trigger would fall back to no URL at all; the password moved with it.
    const removed = restoreMasked(new Map([['DD_REGISTRY_CUSTOM_MINE_PASSWORD', '***']]), current);
    expect(removed.problems.map((problem) => problem.variable)).toEqual(['DD_REGISTRY_CUSTOM_MINE_PASSWORD']);
  });

  it('refuses a mask with nothing to keep, or one that is not what the file holds', () => {
    const { problems } = restoreMasked(
      new Map([
        ['DD_AGENT_NEW_SECRET', '***'],
        ['DD_NOTIFICATION_HTTP_X_URL', 'http://other.example/***'],
      ]),
      current,
    );
    expect(problems).toEqual([
      { variable: 'DD_AGENT_NEW_SECRET', message: expect.stringContaining('no value to keep') },
      { variable: 'DD_NOTIFICATION_HTTP_X_URL', message: expect.stringContaining('does not match') },
    ]);
  });

  it('applies to a whole file sent back and to an editor’s values alike', () => {
    const text = [...current].map(([name, value]) => `${name}: "${value}"`).join('\n');
    const moved = `DD_NOTIFICATION_HTTP_X_URL: https://elsewhere.example/c\nDD_NOTIFICATION_HTTP_X_BEARER: "***"\n`;
    expect(() => unmaskConfigFileText(moved, readConfigFileVariables(text))).toThrow(/BEARER: is masked/);
    expect(() =>
      editConfigFileText(
        text,
        'DD_NOTIFICATION_HTTP_X_',
        new Map([
          ['DD_NOTIFICATION_HTTP_X_URL', 'https://elsewhere.example/c'],
          ['DD_NOTIFICATION_HTTP_X_BEARER', '***'],
        ]),
      ),
    ).toThrow(/BEARER: is masked/);
    const kept = editConfigFileText(
      text,
      'DD_NOTIFICATION_HTTP_X_',
      new Map([
        ['DD_NOTIFICATION_HTTP_X_URL', 'http://ha.local:8123/***'],
        ['DD_NOTIFICATION_HTTP_X_BEARER', '***'],
      ]),
    );
    expect(readConfigFileVariables(kept).get('DD_NOTIFICATION_HTTP_X_BEARER')).toBe('bearer-old-7f3a');
    expect(readConfigFileVariables(kept).get('DD_NOTIFICATION_HTTP_X_URL')).toBe(HOOK);
  });
});
