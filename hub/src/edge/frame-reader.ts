import * as v from 'valibot';
import { type AgentFrame, AgentFrameSchema, EDGE_CLOSE, EDGE_MAX_FRAME_BYTES } from '../../../shared/edge/protocol';

export interface CloseVerdict {
  code: number;
  /** Sent as the close reason: short (the protocol allows 123 bytes) and never echoing the input. */
  reason: string;
}

export type ReadFrameResult = { frame: AgentFrame } | { close: CloseVerdict };

const encoder = new TextEncoder();

/**
 * UTF-8 size of a text frame, without encoding it when the length alone decides: a string of n
 * UTF-16 units takes at least n and at most 3n bytes.
 */
export function textFrameBytes(text: string, maxBytes: number): number {
  if (text.length > maxBytes || text.length * 3 <= maxBytes) return text.length;
  return encoder.encode(text).length;
}

const invalid = (reason: string): { close: CloseVerdict } => ({ close: { code: EDGE_CLOSE.invalidFrame, reason } });

/**
 * One agent frame off the wire (docs/edge-protocol.md "Connecting"): a text frame of at most
 * `maxBytes` (4 MiB, or 32 KiB before the welcome; 1009 otherwise, for runtimes whose socket does
 * not cap it), one JSON object, valid
 * against AgentFrameSchema (4004 otherwise). A `hello` naming another protocol version than the
 * subprotocol in use gets 4008. Never throws.
 */
export function readAgentFrame(
  data: unknown,
  protocol: string,
  maxBytes: number = EDGE_MAX_FRAME_BYTES,
): ReadFrameResult {
  if (typeof data !== 'string') {
    const size = data instanceof ArrayBuffer ? data.byteLength : ArrayBuffer.isView(data) ? data.byteLength : 0;
    if (size > maxBytes) return { close: { code: EDGE_CLOSE.tooLarge, reason: 'frame too large' } };
    return invalid('binary frames are not part of edge/1.0');
  }
  if (textFrameBytes(data, maxBytes) > maxBytes)
    return { close: { code: EDGE_CLOSE.tooLarge, reason: 'frame too large' } };
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return invalid('frame is not JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return invalid('frame is not a JSON object');
  const record = json as Record<string, unknown>;
  if (record.type === 'hello' && record.protocol !== protocol) {
    return { close: { code: EDGE_CLOSE.unsupportedVersion, reason: `hello.protocol must be ${protocol}` } };
  }
  const result = v.safeParse(AgentFrameSchema, json);
  if (!result.success) {
    const type = typeof record.type === 'string' ? record.type.replace(/[^\w.-]/g, '?').slice(0, 24) : 'untyped';
    const path = (v.getDotPath(result.issues[0] as v.BaseIssue<unknown>) ?? '').replace(/[^\w.-]/g, '?').slice(0, 40);
    return invalid(`invalid ${type} frame${path ? ` at ${path}` : ''}`);
  }
  return { frame: result.output };
}
