import { describe, expect, it } from 'vitest';
import { demultiplex, jsonLines, type LogFrame, logLines, rawFrames } from './engine-streams';

async function* chunks(...parts: Array<Buffer | string>): AsyncGenerator<Buffer> {
  for (const part of parts) yield typeof part === 'string' ? Buffer.from(part) : part;
}

async function all<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

function frame(type: number, text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header.writeUInt8(type, 0);
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

const TS1 = '2024-05-01T10:00:00.123456789Z';
const TS2 = '2024-05-01T10:00:01.5Z';

describe('jsonLines', () => {
  it('joins a value split across chunks and splits several sharing one', async () => {
    const values = await all(jsonLines(chunks('{"Action":"cre', 'ate"}\n{"Action":"start"}\n{"Act', 'ion":"die"}\n')));
    expect(values).toEqual([{ Action: 'create' }, { Action: 'start' }, { Action: 'die' }]);
  });

  it('decodes a multi-byte character split between chunks, and a last line without newline', async () => {
    const bytes = Buffer.from('{"name":"café"}\n{"n":1}');
    const values = await all(jsonLines(chunks(bytes.subarray(0, 13), bytes.subarray(13))));
    expect(values).toEqual([{ name: 'café' }, { n: 1 }]);
  });

  it('fails on a line that is no JSON', async () => {
    await expect(all(jsonLines(chunks('{"ok":1}\nnot json\n')))).rejects.toThrow(SyntaxError);
  });
});

describe('demultiplex', () => {
  it('reads frames whose headers and payloads are split anywhere', async () => {
    const stream = Buffer.concat([frame(1, 'out\n'), frame(2, 'err\n'), frame(1, 'more\n')]);
    const frames = await all(
      demultiplex(chunks(stream.subarray(0, 3), stream.subarray(3, 10), stream.subarray(10, 21), stream.subarray(21))),
    );
    expect(frames.map((f) => [f.stream, f.payload.toString()])).toEqual([
      ['stdout', 'out\n'],
      ['stderr', 'err\n'],
      ['stdout', 'more\n'],
    ]);
  });

  it('rejects a stream that is not multiplexed, and one cut inside a frame', async () => {
    await expect(all(demultiplex(chunks('plain text from a TTY\n')))).rejects.toThrow('unknown stream type');
    await expect(all(demultiplex(chunks(frame(1, 'cut short').subarray(0, 12))))).rejects.toThrow(
      'after the last frame',
    );
  });
});

describe('logLines', () => {
  const framed = (...frames: LogFrame[]) =>
    (async function* () {
      yield* frames;
    })();
  const out = (text: string): LogFrame => ({ stream: 'stdout', payload: Buffer.from(text) });

  it('takes the timestamp off each frame and keeps the first one of a line stored as partial messages', async () => {
    const lines = await all(
      logLines(framed(out(`${TS1} xxx`), out(`${TS2} yyy\n`), out(`${TS2} next\n`)), {
        timestamps: true,
        framed: true,
      }),
    );
    expect(lines).toEqual([
      { stream: 'stdout', ts: TS1, line: 'xxxyyy' },
      { stream: 'stdout', ts: TS2, line: 'next' },
    ]);
  });

  it('keeps stdout and stderr lines apart when their partial lines interleave', async () => {
    const frames = framed(out('a'), { stream: 'stderr', payload: Buffer.from('b\n') }, out('c\n'));
    const lines = await all(logLines(frames, { timestamps: false, framed: true }));
    expect(lines).toEqual([
      { stream: 'stderr', ts: '', line: 'b' },
      { stream: 'stdout', ts: '', line: 'ac' },
    ]);
  });

  it('reads a raw TTY stream by lines: CR LF ends, timestamps at line starts, chunks split anywhere', async () => {
    const raw = rawFrames(chunks(`${TS1} one\r\n${TS2} tw`, 'o\r\n'));
    const lines = await all(logLines(raw, { timestamps: true, framed: false }));
    expect(lines).toEqual([
      { stream: 'stdout', ts: TS1, line: 'one' },
      { stream: 'stdout', ts: TS2, line: 'two' },
    ]);
  });

  it('does not take a date the program printed for Docker timestamp', async () => {
    const lines = await all(
      logLines(framed(out(`${TS1} ${TS2} logged by the app\n`)), { timestamps: true, framed: true }),
    );
    expect(lines).toEqual([{ stream: 'stdout', ts: TS1, line: `${TS2} logged by the app` }]);
  });
});
