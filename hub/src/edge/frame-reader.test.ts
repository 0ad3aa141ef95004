import { describe, expect, it } from 'vitest';
import { EDGE_CLOSE } from '../../../shared/edge/protocol';
import { readAgentFrame, textFrameBytes } from './frame-reader';

const PROTOCOL = 'edge/1.0';

describe('readAgentFrame', () => {
  it('reads a valid frame', () => {
    expect(readAgentFrame('{"type":"ping"}', PROTOCOL)).toEqual({ frame: { type: 'ping' } });
    expect(readAgentFrame('{"type":"container.removed","watcher":"local","containerId":"abc"}', PROTOCOL)).toEqual({
      frame: { type: 'container.removed', watcher: 'local', containerId: 'abc' },
    });
  });

  it.each([
    ['not JSON', '{"type":'],
    ['a JSON array', '[{"type":"ping"}]'],
    ['a JSON string', '"ping"'],
    ['an unknown type', '{"type":"launch"}'],
    ['a schema mismatch', '{"type":"container.removed","watcher":"Local!","containerId":"abc"}'],
    ['a reply without an id', '{"type":"reply","ok":true}'],
  ])('closes 4004 for %s', (_what, text) => {
    const result = readAgentFrame(text, PROTOCOL);
    expect('close' in result && result.close.code).toBe(EDGE_CLOSE.invalidFrame);
  });

  it('closes 4004 for binary frames and 1009 for frames over the cap, text or binary', () => {
    expect(readAgentFrame(new ArrayBuffer(8), PROTOCOL)).toMatchObject({ close: { code: EDGE_CLOSE.invalidFrame } });
    expect(readAgentFrame(new Uint8Array(101), PROTOCOL, 100)).toMatchObject({ close: { code: EDGE_CLOSE.tooLarge } });
    expect(readAgentFrame(`"${'x'.repeat(99)}"`, PROTOCOL, 100)).toMatchObject({
      close: { code: EDGE_CLOSE.tooLarge },
    });
    // 40 characters, 120 bytes of UTF-8: over a 100-byte cap though its length is not.
    expect(readAgentFrame(`"${'€'.repeat(40)}"`, PROTOCOL, 100)).toMatchObject({
      close: { code: EDGE_CLOSE.tooLarge },
    });
  });

  it('closes 4008 for a hello of another protocol version, before its schema is looked at', () => {
    expect(readAgentFrame('{"type":"hello","protocol":"edge/1.1"}', PROTOCOL)).toMatchObject({
      close: { code: EDGE_CLOSE.unsupportedVersion },
    });
  });

  it('keeps close reasons short and free of what the peer sent', () => {
    const result = readAgentFrame(`{"type":"${'é'.repeat(200)}"}`, PROTOCOL);
    expect('close' in result && new TextEncoder().encode(result.close.reason).length).toBeLessThanOrEqual(123);
    expect('close' in result && result.close.reason).not.toContain('é');
  });
});

describe('textFrameBytes', () => {
  it('counts UTF-8 bytes where the length alone cannot decide', () => {
    expect(textFrameBytes('abc', 100)).toBe(3);
    expect(textFrameBytes('€€', 5)).toBe(6);
  });
});
