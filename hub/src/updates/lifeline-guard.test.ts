import { describe, expect, it } from 'vitest';
import { lifelineReason } from './lifeline-guard';

const proxy = { id: 'p'.repeat(64), name: 'socket-proxy' };
const spec = (aliases: string[], hostPort?: string) => ({
  networks: [{ name: 'backend', aliases }],
  portBindings: hostPort ? { '2375/tcp': [{ hostIp: '', hostPort }] } : {},
});
const tcp = (host: string, port = 2375) => ({ host, port, protocol: 'http' as const });

describe('lifeline guard', () => {
  it('names the hub’s own container whatever the endpoint', () => {
    expect(lifelineReason(proxy, undefined, { socketPath: '/var/run/docker.sock' }, proxy.id)).toContain('the hub runs in socket-proxy');
    expect(lifelineReason(proxy, undefined, undefined, 'other')).toBeUndefined();
  });

  it('names the container serving a TCP endpoint by its name or a network alias, in any case', () => {
    expect(lifelineReason(proxy, spec([]), tcp('Socket-Proxy'), undefined)).toContain('http://Socket-Proxy:2375');
    expect(lifelineReason({ ...proxy, name: 'stack-proxy-1' }, spec(['dockerproxy']), tcp('dockerproxy'), undefined)).toBeDefined();
    expect(lifelineReason({ ...proxy, name: 'web' }, spec(['web']), tcp('dockerproxy'), undefined)).toBeUndefined();
  });

  it('names a container publishing the port of a loopback endpoint, not of a remote one', () => {
    expect(lifelineReason({ ...proxy, name: 'p' }, spec([], '2375'), tcp('127.0.0.1'), undefined)).toBeDefined();
    expect(lifelineReason({ ...proxy, name: 'p' }, spec([], '2376'), tcp('localhost'), undefined)).toBeUndefined();
    expect(lifelineReason({ ...proxy, name: 'p' }, spec([], '2375'), tcp('10.0.0.5'), undefined)).toBeUndefined();
  });

  it('leaves everything else alone on a socket endpoint', () => {
    expect(lifelineReason(proxy, spec(['socket-proxy'], '2375'), { socketPath: '/run/docker.sock' }, undefined)).toBeUndefined();
  });
});
