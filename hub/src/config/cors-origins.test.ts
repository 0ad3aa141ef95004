import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../shared/config/config-error';
import { loadHubConfig } from './hub-config';

const noFiles = (path: string): string => {
  throw new Error(`no file ${path}`);
};
const corsOf = (value: string) => loadHubConfig({ DD_SERVER_CORS_ORIGINS: value }, noFiles).server.corsOrigins;

function refusal(value: string): ConfigError {
  try {
    corsOf(value);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`"${value}" was accepted`);
}

describe('DD_SERVER_CORS_ORIGINS', () => {
  it('is off by default and known to the configuration', () => {
    const config = loadHubConfig({}, noFiles);
    expect(config.server.corsOrigins).toEqual([]);
    expect(loadHubConfig({ DD_SERVER_CORS_ORIGINS: 'https://a.example' }, noFiles).unknownVariables).toEqual([]);
  });

  it('reads exact origins as a browser serialises them', () => {
    expect(corsOf(' https://Dash.Example.com , http://127.0.0.1:8080/,https://dash.example.com:443')).toEqual([
      'https://dash.example.com',
      'http://127.0.0.1:8080',
    ]);
    expect(corsOf('http://[::1]:5173')).toEqual(['http://[::1]:5173']);
    expect(corsOf(' , ')).toEqual([]);
  });

  it.each([
    ['*', '"*" is refused because CORS answers are credentialed'],
    ['https://a.example,*', '"*" is refused'],
    ['dash.example.com', 'is not an origin'],
    ['https://dash.example.com/app', 'is not an origin'],
    ['https://dash.example.com?x=1', 'is not an origin'],
    ['https://user@dash.example.com', 'is not an origin'],
    ['ftp://dash.example.com', 'is not an origin'],
    ['null', 'is not an origin'],
    ['https://*.example.com', 'is not an origin'],
  ])('refuses start-up on %s, naming the variable', (value, problem) => {
    const error = refusal(value);
    expect(error.variable).toBe('DD_SERVER_CORS_ORIGINS');
    expect(error.message).toMatch(/^DD_SERVER_CORS_ORIGINS: /);
    expect(error.message).toContain(problem);
  });
});
