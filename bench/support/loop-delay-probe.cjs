/**
 * Loaded into a hub process under measurement with `--require` (NODE_OPTIONS): the event loop's
 * delay, one JSON line per 5 s window appended to LOOP_DELAY_FILE. monitorEventLoopDelay samples
 * from libuv's own timer, so a window the hub spent stalled is still recorded (its line is just
 * written late). CommonJS, so it loads before tsx and needs no transform.
 */
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { appendFileSync } = require('node:fs');

const file = process.env.LOOP_DELAY_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const ms = (ns) => Math.round(ns / 1e5) / 10;
  const flush = () => {
    if (histogram.count === 0) return;
    const line = {
      t: Date.now(),
      count: histogram.count,
      p50: ms(histogram.percentile(50)),
      p99: ms(histogram.percentile(99)),
      max: ms(histogram.max),
    };
    histogram.reset();
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
  setInterval(flush, 5_000).unref();
  process.on('exit', flush);
}
