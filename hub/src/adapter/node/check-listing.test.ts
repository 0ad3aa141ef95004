import { describe, expect, it } from 'vitest';
import { prefetchCheckListing } from './check-listing';

describe('prefetchCheckListing: which invocations of dockwatch check list early', () => {
  const of = (args: string[], DOCKER_HOST?: string) => {
    const prefetch = prefetchCheckListing(args, { DOCKER_HOST });
    prefetch?.discard();
    return prefetch && { socketPath: prefetch.socketPath, all: prefetch.all };
  };

  it('is the socket of DOCKER_HOST (default /var/run/docker.sock) for --docker, with --all or not', () => {
    expect(of(['--docker'], 'unix:///tmp/engine.sock')).toEqual({ socketPath: '/tmp/engine.sock', all: false });
    expect(of(['--json', '--docker', '--all'], 'unix:///tmp/engine.sock')).toEqual({
      socketPath: '/tmp/engine.sock',
      all: true,
    });
    expect(of(['--docker'])).toEqual({ socketPath: '/var/run/docker.sock', all: false });
  });

  it('is nothing without --docker, for --help, or for a TCP Engine', () => {
    expect(of(['--docker'], 'tcp://10.0.0.2:2375')).toBeUndefined();
    expect(of(['--docker', '--help'], 'unix:///tmp/engine.sock')).toBeUndefined();
    expect(of(['nginx:1.27', '--file', 'images.yaml'], 'unix:///tmp/engine.sock')).toBeUndefined();
    expect(of([])).toBeUndefined();
  });
});
