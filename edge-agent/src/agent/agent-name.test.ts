import { describe, expect, it } from 'vitest';
import { AGENT_NAME } from '../../../shared/edge/protocol';
import { agentNameFromHostname } from './agent-name';

describe('agent name from the host name', () => {
  it.each([
    ['nas', 'nas'],
    ['NAS-01', 'nas-01'],
    ['nas.home.lan', 'nas-home-lan'],
    ['my_host', 'my-host'],
    ['--edge--box--', 'edge-box'],
    ['Ünïcode-Höst', 'n-code-h-st'],
    ['a'.repeat(70), 'a'.repeat(63)],
    [`${'a'.repeat(62)}.b`, 'a'.repeat(62)],
  ])('%s -> %s', (hostname, expected) => {
    const name = agentNameFromHostname(hostname);
    expect(name).toBe(expected);
    expect(name).toMatch(AGENT_NAME);
  });

  it.each(['', '...', '___', '-'])('gives nothing usable for %j', (hostname) => {
    expect(agentNameFromHostname(hostname)).toBeUndefined();
  });
});
