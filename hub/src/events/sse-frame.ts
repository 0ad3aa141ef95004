import type { UiEventType } from '../../../shared/schemas/ui-events';
import type { UiEvent } from './event-bus';

const encoder = new TextEncoder();
const published = new WeakMap<UiEvent, Uint8Array>();

/**
 * One SSE frame in the wire form of http-interface §6.1: `id`, `event`, then `data` on a single line
 * (JSON.stringify escapes every CR and LF, so a payload can never end the frame early).
 */
export function encodeFrame(id: string, type: UiEventType, data: unknown): Uint8Array {
  return encodeSseFrame(id, type, data);
}

/** The same wire form for streams with event names of their own (the stats streams). */
export function encodeSseFrame(id: string, event: string, data: unknown): Uint8Array {
  return encoder.encode(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data) ?? 'null'}\n\n`);
}

/**
 * The frame of a published event, encoded once however many clients receive it: fan-out then
 * costs one enqueue per client. The bytes are shared, which is safe because streams only read them.
 */
export function frameOf(event: UiEvent): Uint8Array {
  let frame = published.get(event);
  if (frame === undefined) {
    frame = encodeFrame(event.id, event.type, event.data);
    published.set(event, frame);
  }
  return frame;
}
