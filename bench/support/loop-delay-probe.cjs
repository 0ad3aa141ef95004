/**
 * Loaded into a hub process under measurement with `--require` (NODE_OPTIONS): the event loop's
 * delay, one JSON line per 5 s window appended to LOOP_DELAY_FILE. monitorEventLoopDelay samples
 * from libuv's own timer, so a window the hub spent stalled is still recorded (its line is just
 * written late), and where its memory is (heap used and reserved, external). CommonJS, so it loads before tsx and needs no transform.
 */
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { appendFileSync, existsSync } = require('node:fs');

const { isMainThread } = require('node:worker_threads');

const file = process.env.LOOP_DELAY_FILE;
// The hub's own loop only: a preload also runs in worker threads (tsx's loader hooks), whose idle
// loops would add their own windows to the file.
if (file && isMainThread) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const ms = (ns) => Math.round(ns / 1e5) / 10;
  const flush = () => {
    if (histogram.count === 0) return;
    // Where the process's memory is at the window's end (MiB): the V8 heap, or outside it.
    const memory = process.memoryUsage();
    const mib = (bytes) => Math.round(bytes / 2 ** 20);
    const line = {
      t: Date.now(),
      count: histogram.count,
      p50: ms(histogram.percentile(50)),
      p99: ms(histogram.percentile(99)),
      max: ms(histogram.max),
      heapUsed: mib(memory.heapUsed),
      heapTotal: mib(memory.heapTotal),
      external: mib(memory.external),
      arrayBuffers: mib(memory.arrayBuffers),
    };
    histogram.reset();
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
  setInterval(flush, 5_000).unref();
  process.on('exit', flush);

  // One histogram over a span the benchmark marks with files beside LOOP_DELAY_FILE (`.start`, then
  // `.stop`): the delay of the whole burst, not of 5 s windows. Polled, so the span is at most 100 ms off.
  const span = monitorEventLoopDelay({ resolution: 10 });
  let spanState = 'before';
  setInterval(() => {
    if (spanState === 'before' && existsSync(`${file}.start`)) {
      span.enable();
      spanState = 'open';
    } else if (spanState === 'open' && existsSync(`${file}.stop`)) {
      span.disable();
      spanState = 'closed';
      const line = {
        span: true,
        count: span.count,
        p50: ms(span.percentile(50)),
        p99: ms(span.percentile(99)),
        max: ms(span.max),
      };
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    }
  }, 100).unref();
}
