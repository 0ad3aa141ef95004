import { describe, expect, it } from 'vitest';
import { formatImageReference, isLoopbackHost, parseImageReference, registryApiHost } from './image-reference';

describe('parseImageReference', () => {
  it.each([
    ['nginx', { registry: 'docker.io', repository: 'library/nginx' }],
    ['nginx:1.27', { registry: 'docker.io', repository: 'library/nginx', tag: '1.27' }],
    ['library/nginx:1.27-alpine', { registry: 'docker.io', repository: 'library/nginx', tag: '1.27-alpine' }],
    ['index.docker.io/grafana/grafana:11.1.0', { registry: 'docker.io', repository: 'grafana/grafana', tag: '11.1.0' }],
    [
      'ghcr.io/home-assistant/home-assistant:2024.10.1',
      { registry: 'ghcr.io', repository: 'home-assistant/home-assistant', tag: '2024.10.1' },
    ],
    ['127.0.0.1:5000/test/app:1.0.0', { registry: '127.0.0.1:5000', repository: 'test/app', tag: '1.0.0' }],
    ['localhost/app', { registry: 'localhost', repository: 'app' }],
    [
      'lscr.io/linuxserver/plex:1.40.1.8227-c0dd5a73e-ls234',
      { registry: 'lscr.io', repository: 'linuxserver/plex', tag: '1.40.1.8227-c0dd5a73e-ls234' },
    ],
    [
      `redis:7@sha256:${'a'.repeat(64)}`,
      { registry: 'docker.io', repository: 'library/redis', tag: '7', digest: `sha256:${'a'.repeat(64)}` },
    ],
  ])('%s', (input, expected) => {
    expect(parseImageReference(input)).toEqual(expected);
  });

  it.each([
    '',
    'UPPER/case',
    'nginx:',
    'nginx:bad tag',
    'nginx@sha256:short',
    'a//b',
    `x:${'t'.repeat(200)}`,
    '-lead/x',
  ])('refuses %j', (input) => {
    expect(() => parseImageReference(input)).toThrow(/invalid image reference/);
  });

  it('formats back the way users write it', () => {
    expect(formatImageReference(parseImageReference('nginx:1.27'))).toBe('nginx:1.27');
    expect(formatImageReference(parseImageReference('ghcr.io/a/b:1'))).toBe('ghcr.io/a/b:1');
    expect(registryApiHost('docker.io')).toBe('registry-1.docker.io');
    expect(isLoopbackHost('127.0.0.1:5000')).toBe(true);
    expect(isLoopbackHost('[::1]:5000')).toBe(true);
    expect(isLoopbackHost('registry.local')).toBe(false);
  });
});
