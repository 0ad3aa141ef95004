import { describe, expect, it } from 'vitest';
import {
  ConfigFileError,
  checkConfigFileText,
  configSources,
  editConfigFileText,
  maskConfigFileText,
  mergeConfigFile,
  readConfigFileVariables,
  unmaskConfigFileText,
} from './config-file';

describe('the configuration file', () => {
  it('reads flat names and nested keys alike, scalars as text', () => {
    const variables = readConfigFileVariables(
      [
        'DD_SERVER_PORT: 3100',
        'DD_LOG_BUFFER_ENABLED: false',
        'DD_WATCHER:',
        '  local:',
        '    cron: "*/5 * * * *"',
        'dd_notification_http_ops_url: https://hooks.example/x',
      ].join('\n'),
    );
    expect(Object.fromEntries(variables)).toEqual({
      DD_SERVER_PORT: '3100',
      DD_LOG_BUFFER_ENABLED: 'false',
      DD_WATCHER_LOCAL_CRON: '*/5 * * * *',
      DD_NOTIFICATION_HTTP_OPS_URL: 'https://hooks.example/x',
    });
  });

  it('lists every problem with the variable it concerns', () => {
    const { problems } = checkConfigFileText(
      ['PORT: 1', 'DD_STORE_PATH: [a, b]', 'DD_X__FILE: /run/secret', 'DD_A_B: 1', 'DD_A: {B: 2}'].join('\n'),
    );
    expect(problems.map((problem) => problem.variable)).toEqual(['PORT', 'DD_STORE_PATH', 'DD_X__FILE', 'DD_A_B']);
    expect(() => readConfigFileVariables('DD_A: [1')).toThrow(ConfigFileError);
    expect(() => readConfigFileVariables('- DD_A')).toThrow(/must be a mapping/);
    expect(readConfigFileVariables('').size).toBe(0);
  });

  it('lets the environment win, and names each source', () => {
    const file = new Map([
      ['DD_SERVER_PORT', '3100'],
      ['DD_STORE_PATH', '/data'],
      ['DD_STORE_URL', 'redis://x'],
    ]);
    const env = { DD_SERVER_PORT: '4000', DD_STORE_URL__FILE: '/run/url', PATH: '/bin' };
    expect(mergeConfigFile(env, file)).toEqual({ ...env, DD_STORE_PATH: '/data' });
    expect(Object.fromEntries(configSources(env, file))).toEqual({
      DD_SERVER_PORT: 'env',
      DD_STORE_PATH: 'file',
      DD_STORE_URL: 'env',
    });
  });

  it('masks secrets in the text, and a write sending the mask back keeps them', () => {
    const text =
      '# ops\nDD_AGENT_A_SECRET: s3cr3t-value\nDD_NOTIFICATION:\n  http:\n    ops:\n      url: https://h/tok\n';
    const masked = maskConfigFileText(text);
    expect(masked).not.toContain('s3cr3t-value');
    expect(masked).not.toContain('https://h/tok');
    expect(masked).toContain('# ops');
    const current = readConfigFileVariables(text);
    const sentBack = masked.replace('ops:', 'ops:\n      method: PUT\n      # changed');
    const kept = readConfigFileVariables(unmaskConfigFileText(sentBack, current));
    expect(kept.get('DD_AGENT_A_SECRET')).toBe('s3cr3t-value');
    expect(kept.get('DD_NOTIFICATION_HTTP_OPS_URL')).toBe('https://h/tok');
    expect(kept.get('DD_NOTIFICATION_HTTP_OPS_METHOD')).toBe('PUT');
    expect(() => unmaskConfigFileText('DD_AGENT_B_SECRET: "***"', current)).toThrow(/no value to keep/);
  });

  it('edits one provider: its variables replaced wherever they were written, the rest kept', () => {
    const text =
      '# keep me\nDD_SERVER_PORT: 1\nDD_WATCHER:\n  local:\n    cron: "0 * * * *"\n    jitter: 5\n  other:\n    socket: /s\n';
    const edited = editConfigFileText(text, 'DD_WATCHER_LOCAL_', new Map([['DD_WATCHER_LOCAL_CRON', '*/2 * * * *']]));
    expect(edited).toContain('# keep me');
    expect(Object.fromEntries(readConfigFileVariables(edited))).toEqual({
      DD_SERVER_PORT: '1',
      DD_WATCHER_OTHER_SOCKET: '/s',
      DD_WATCHER_LOCAL_CRON: '*/2 * * * *',
    });
    const removed = editConfigFileText(edited, 'DD_WATCHER_OTHER_', undefined);
    expect(Object.keys(Object.fromEntries(readConfigFileVariables(removed)))).toEqual([
      'DD_SERVER_PORT',
      'DD_WATCHER_LOCAL_CRON',
    ]);
    expect(removed).not.toContain('other');
  });
});
