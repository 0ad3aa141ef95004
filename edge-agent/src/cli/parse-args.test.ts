import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../shared/config/config-error';
import { parseArguments, resolveAgentName } from './parse-args';

function failure(argv: string[]): ConfigError {
  try {
    parseArguments(argv);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`no error for ${argv.join(' ')}`);
}

describe('agent command line', () => {
  it('reads the run command, --flag value and --flag=value alike', () => {
    expect(parseArguments(['--hub', 'wss://hub:3000', '--key', 'agent.key'])).toEqual({
      command: 'run',
      hub: 'wss://hub:3000',
      url: 'wss://hub:3000/api/v1/edge/ws',
      keyFile: 'agent.key',
    });
    expect(parseArguments(['--hub=https://hub', '--key=/k', '--name=nas-1'])).toEqual({
      command: 'run',
      hub: 'https://hub',
      url: 'wss://hub/api/v1/edge/ws',
      keyFile: '/k',
      name: 'nas-1',
    });
  });

  it('reads keygen with its switches', () => {
    expect(parseArguments(['keygen', '--key', 'a.key'])).toEqual({
      command: 'keygen',
      keyFile: 'a.key',
      force: false,
      json: false,
    });
    expect(
      parseArguments(['keygen', '--key', 'a.key', '--force', '--json', '--name', 'nas', '--hub', 'wss://h']),
    ).toEqual({
      command: 'keygen',
      keyFile: 'a.key',
      force: true,
      json: true,
      name: 'nas',
      hub: 'wss://h',
    });
  });

  it('reads listen mode: --listen PORT with an optional --secret and --listen-host', () => {
    expect(parseArguments(['--listen', '3001'])).toEqual({ command: 'listen', port: 3001 });
    expect(parseArguments(['--listen=0', '--secret', 's3', '--listen-host', '0.0.0.0'])).toEqual({
      command: 'listen',
      port: 0,
      secret: 's3',
      host: '0.0.0.0',
    });
  });

  it('reads --version, and --healthcheck for edge mode (the key) or listen mode (the port)', () => {
    expect(parseArguments(['--version'])).toEqual({ command: 'version' });
    expect(parseArguments(['--healthcheck', '--hub', 'wss://h', '--key', '/app/key/agent.key'])).toEqual({
      command: 'healthcheck',
      keyFile: '/app/key/agent.key',
    });
    expect(parseArguments(['--healthcheck', '--listen', '3001', '--listen-host', '0.0.0.0'])).toEqual({
      command: 'healthcheck',
      port: 3001,
      host: '0.0.0.0',
    });
  });

  it('shows the usage on --help', () => {
    expect(parseArguments(['--help'])).toEqual({ command: 'help' });
    expect(parseArguments(['keygen', '-h'])).toEqual({ command: 'help' });
  });

  it.each([
    [['--key', 'k'], '--hub', /is required/],
    [['--hub', 'wss://h'], '--key', /is required/],
    [['keygen'], '--key', /is required/],
    [['--hub', 'ftp://h', '--key', 'k'], '--hub', /unsupported scheme/],
    [['--hub', 'wss://h', '--key', 'k', '--name', 'Bad_Name'], '--name', /1-63/],
    [['--hub', 'wss://h', '--key'], '--key', /needs a value/],
    [['--hub', '--key', 'k'], '--hub', /needs a value/],
    [['--hub', 'wss://h', '--key', 'k', '--key', 'j'], '--key', /twice/],
    [['--hub', 'wss://h', '--key', 'k', '--verbose'], '--verbose', /unknown argument/],
    [['--hub', 'wss://h', '--key', 'k', '--force'], '--force', /only goes with keygen/],
    [['--listen', 'http'], '--listen', /port number/],
    [['--listen', '70000'], '--listen', /port number/],
    [['--listen', '3001', '--hub', 'wss://h'], '--hub', /does not go with --listen/],
    [['--listen', '3001', '--key', 'k'], '--key', /does not go with --listen/],
    [['--listen', '3001', '--name', 'nas'], '--name', /DD_AGENT_<NAME>/],
    [['--listen', '3001', '--force'], '--force', /only goes with keygen/],
    [['--hub', 'wss://h', '--key', 'k', '--secret', 's'], '--secret', /only goes with --listen/],
    [['--hub', 'wss://h', '--key', 'k', '--listen-host', '0.0.0.0'], '--listen-host', /only goes with --listen/],
    [['keygen', '--key', 'k', '--listen', '3001'], '--listen', /does not go with keygen/],
    [['--healthcheck'], '--healthcheck', /needs --key FILE/],
    [['keygen', '--key', 'k', '--healthcheck'], '--healthcheck', /does not go with keygen/],
  ])('%j fails naming %s', (argv, flag, message) => {
    const error = failure(argv);
    expect(error.variable).toBe(flag);
    expect(error.message.startsWith(`${flag}: `)).toBe(true);
    expect(error.message).toMatch(message);
  });

  it('defaults the name to the sanitised host name, and asks for --name when there is none', () => {
    expect(resolveAgentName(undefined, 'Edge.Box')).toBe('edge-box');
    expect(resolveAgentName('given', 'Edge.Box')).toBe('given');
    expect(() => resolveAgentName(undefined, '___')).toThrow(/--name: .*give one with --name/);
  });
});
