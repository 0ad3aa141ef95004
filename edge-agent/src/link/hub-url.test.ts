import { describe, expect, it } from 'vitest';
import { edgeSocketUrl } from './hub-url';

describe('the hub URL of --hub', () => {
  it.each([
    ['wss://hub.example:3000', 'wss://hub.example:3000/api/v1/edge/ws'],
    ['ws://127.0.0.1:3000/', 'ws://127.0.0.1:3000/api/v1/edge/ws'],
    ['https://hub.example', 'wss://hub.example/api/v1/edge/ws'],
    ['http://10.0.0.2:3000', 'ws://10.0.0.2:3000/api/v1/edge/ws'],
    ['https://proxy.example/dockwatch/', 'wss://proxy.example/dockwatch/api/v1/edge/ws'],
    ['wss://hub.example/api/v1/edge/ws', 'wss://hub.example/api/v1/edge/ws'],
    ['ws://[::1]:3000', 'ws://[::1]:3000/api/v1/edge/ws'],
  ])('%s -> %s', (hub, url) => {
    expect(edgeSocketUrl(hub)).toBe(url);
  });

  it.each([
    ['hub.example:3000', /scheme|URL/],
    ['ftp://hub.example', /unsupported scheme/],
    ['not a url', /not a URL/],
    ['wss://user:pass@hub.example', /credentials/],
    ['wss://hub.example/?token=1', /query/],
  ])('refuses %s', (hub, message) => {
    expect(() => edgeSocketUrl(hub)).toThrow(message);
  });
});
