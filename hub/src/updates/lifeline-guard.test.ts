import { describe, expect, it } from 'vitest';
import { lifelineReason, tcpEndpointOf } from './lifeline-guard';

const proxy = { id: 'p'.repeat(64), name: 'socket-proxy' };
const spec = (aliases: string[], hostPort?: string) => ({
  networks: [{ name: 'backend', aliases }],
  portBindings: hostPort ? { '2375/tcp': [{ hostIp: '', hostPort }] } : {},
});
const tcp = (host: string, port = 2375) => ({ host, port, protocol: 'http' as const });
const hub = (containerId?: string) => ({ containerId, runs: 'the hub' });

describe('lifeline guard', () => {
  it('names the hub’s own container whatever the endpoint', () => {
    expect(lifelineReason(proxy, undefined, { socketPath: '/var/run/docker.sock' }, hub(proxy.id))).toContain(
      'the hub runs in socket-proxy',
    );
    expect(lifelineReason(proxy, undefined, undefined, hub('other'))).toBeUndefined();
  });

  it('names the container serving a TCP endpoint by its name or a network alias, in any case', () => {
    expect(lifelineReason(proxy, spec([]), tcp('Socket-Proxy'), hub())).toContain('http://Socket-Proxy:2375');
    expect(
      lifelineReason({ ...proxy, name: 'stack-proxy-1' }, spec(['dockerproxy']), tcp('dockerproxy'), hub()),
    ).toBeDefined();
    expect(lifelineReason({ ...proxy, name: 'web' }, spec(['web']), tcp('dockerproxy'), hub())).toBeUndefined();
  });

  it('names a container publishing the port of a loopback endpoint, not of a remote one', () => {
    expect(lifelineReason({ ...proxy, name: 'p' }, spec([], '2375'), tcp('127.0.0.1'), hub())).toBeDefined();
    expect(lifelineReason({ ...proxy, name: 'p' }, spec([], '2376'), tcp('localhost'), hub())).toBeUndefined();
    expect(lifelineReason({ ...proxy, name: 'p' }, spec([], '2375'), tcp('10.0.0.5'), hub())).toBeUndefined();
  });

  it('compares names only without a configuration (an edge agent’s container), and reads an agent’s shown endpoint', () => {
    const agent = { containerId: 'a'.repeat(64), runs: 'the edge agent nas' };
    expect(lifelineReason({ id: 'a'.repeat(64), name: 'dockwatch-agent' }, undefined, undefined, agent)).toContain(
      'the edge agent nas runs in dockwatch-agent',
    );
    expect(lifelineReason(proxy, undefined, tcpEndpointOf('tcp://socket-proxy:2375'), agent)).toContain(
      'the edge agent nas reaches',
    );
    expect(
      lifelineReason({ ...proxy, name: 'web' }, undefined, tcpEndpointOf('tcp://socket-proxy:2375'), agent),
    ).toBeUndefined();
    expect(tcpEndpointOf('unix:///var/run/docker.sock')).toBeUndefined();
    expect(tcpEndpointOf('tcp://10.0.0.5')).toEqual({ host: '10.0.0.5', port: 2375, protocol: 'http' });
  });

  it('leaves everything else alone on a socket endpoint', () => {
    expect(
      lifelineReason(proxy, spec(['socket-proxy'], '2375'), { socketPath: '/run/docker.sock' }, hub()),
    ).toBeUndefined();
  });
});
