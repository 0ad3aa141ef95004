/**
 * Decoders for the Engine's streaming responses, kept free of dockerode and sockets so they can be
 * fed hand-made chunks: the Engine's own writes never split where a client's reads do.
 */
import type { DockerLogLine } from '../../../shared/docker/docker-host';

/** `/events` is newline-delimited JSON: one value may span chunks, and one chunk may hold several. */
export async function* jsonLines(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of chunks) {
    pending += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (line !== '') yield JSON.parse(line);
      newline = pending.indexOf('\n');
    }
  }
  const rest = (pending + decoder.decode()).trim();
  if (rest !== '') yield JSON.parse(rest);
}

export interface LogFrame {
  stream: 'stdout' | 'stderr';
  payload: Buffer;
}

const HEADER_BYTES = 8;

/**
 * Docker's multiplexed format for containers without a TTY: an 8-byte header (stream type, three
 * zero bytes, payload length as big-endian uint32) before each payload. Stdin (0) never appears in
 * logs; it is reported as stdout rather than dropped.
 */
export async function* demultiplex(chunks: AsyncIterable<Buffer>): AsyncGenerator<LogFrame> {
  let buffer: Buffer = Buffer.alloc(0);
  for await (const chunk of chunks) {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    while (buffer.length >= HEADER_BYTES) {
      const type = buffer.readUInt8(0);
      const length = buffer.readUInt32BE(4);
      if (type > 2) throw new Error(`malformed log stream: unknown stream type ${type}`);
      if (buffer.length < HEADER_BYTES + length) break;
      yield { stream: type === 2 ? 'stderr' : 'stdout', payload: buffer.subarray(HEADER_BYTES, HEADER_BYTES + length) };
      buffer = buffer.subarray(HEADER_BYTES + length);
    }
  }
  if (buffer.length > 0) throw new Error(`malformed log stream: ${buffer.length} bytes after the last frame`);
}

/** A TTY container's logs are one raw stream: everything a terminal shows is stdout. */
export async function* rawFrames(chunks: AsyncIterable<Buffer>): AsyncGenerator<LogFrame> {
  for await (const payload of chunks) yield { stream: 'stdout', payload };
}

// RFC 3339 with Docker's nanoseconds, followed by one space.
const TIMESTAMP_PREFIX = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) /;

interface PendingLine {
  decoder: TextDecoder;
  text: string;
  ts: string | undefined;
}

/**
 * Reassembles lines per stream. With timestamps, Docker prefixes every log message; a line longer
 * than 16 KiB is stored as several partial messages, each with its own prefix, so in multiplexed
 * mode (one frame per message) the prefix is taken off each frame and the line keeps its first one.
 * A TTY stream has no message boundaries: there the prefix is read at the start of each line.
 */
export async function* logLines(
  frames: AsyncIterable<LogFrame>,
  options: { timestamps: boolean; framed: boolean },
): AsyncGenerator<DockerLogLine> {
  const pending = { stdout: newPending(), stderr: newPending() };
  for await (const { stream, payload } of frames) {
    const state = pending[stream];
    let text = state.decoder.decode(payload, { stream: true });
    if (options.timestamps && options.framed) {
      const match = TIMESTAMP_PREFIX.exec(text);
      if (match) text = text.slice(match[0].length);
      // '' rather than undefined: a framed line is never searched for a prefix again (its text may print dates).
      if (state.text === '') state.ts = match?.[1] ?? '';
    }
    state.text += text;
    let newline = state.text.indexOf('\n');
    while (newline !== -1) {
      yield toLine(stream, state, state.text.slice(0, newline), options.timestamps);
      state.text = state.text.slice(newline + 1);
      newline = state.text.indexOf('\n');
    }
  }
  for (const stream of ['stdout', 'stderr'] as const) {
    const state = pending[stream];
    state.text += state.decoder.decode();
    // A last line without a newline (the container exited mid-line) is still a line.
    if (state.text !== '') yield toLine(stream, state, state.text, options.timestamps);
  }
}

function newPending(): PendingLine {
  return { decoder: new TextDecoder(), text: '', ts: undefined };
}

function toLine(stream: 'stdout' | 'stderr', state: PendingLine, raw: string, timestamps: boolean): DockerLogLine {
  // A TTY ends lines with CR LF.
  let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  let ts = state.ts;
  state.ts = undefined;
  if (timestamps && ts === undefined) {
    const match = TIMESTAMP_PREFIX.exec(line);
    if (match) {
      ts = match[1];
      line = line.slice(match[0].length);
    }
  }
  // The interface's ts is not optional: without timestamps there is none to give.
  return { stream, ts: ts ?? '', line };
}
