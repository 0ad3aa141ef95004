import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Histogram, MetricsRegistry } from './metrics-registry';

describe('metrics registry', () => {
  it('renders counters, gauges and histograms in the Prometheus text format', () => {
    const registry = new MetricsRegistry();
    const counter = registry.register(new Counter('t_total', 'a counter', ['kind']));
    const gauge = registry.register(new Gauge('t_gauge', 'a gauge', [], (g) => g.set({}, 7)));
    const histogram = registry.register(new Histogram('t_seconds', 'a histogram', ['op'], [0.1, 1]));
    counter.inc({ kind: 'a"b\\c\nd' });
    counter.inc({ kind: 'a"b\\c\nd' }, 2);
    histogram.observe({ op: 'x' }, 0.05);
    histogram.observe({ op: 'x' }, 0.5);
    histogram.observe({ op: 'x' }, 5);
    expect(gauge.name).toBe('t_gauge');
    expect(registry.render()).toBe(
      [
        '# HELP t_total a counter',
        '# TYPE t_total counter',
        't_total{kind="a\\"b\\\\c\\nd"} 3',
        '# HELP t_gauge a gauge',
        '# TYPE t_gauge gauge',
        't_gauge 7',
        '# HELP t_seconds a histogram',
        '# TYPE t_seconds histogram',
        't_seconds_bucket{op="x",le="0.1"} 1',
        't_seconds_bucket{op="x",le="1"} 2',
        't_seconds_bucket{op="x",le="+Inf"} 3',
        't_seconds_sum{op="x"} 5.55',
        't_seconds_count{op="x"} 3',
        '',
      ].join('\n'),
    );
  });

  it('renders OpenMetrics: counter families without _total, samples with it, quotes escaped in HELP', () => {
    const registry = new MetricsRegistry();
    registry.register(new Counter('t_total', 'a "counted" thing', ['kind'])).inc({ kind: 'x' });
    registry.register(new Gauge('t_gauge', 'a gauge', [], (g) => g.set({}, 7)));
    expect(registry.render('openmetrics')).toBe(
      [
        '# HELP t a \\"counted\\" thing',
        '# TYPE t counter',
        't_total{kind="x"} 1',
        '# HELP t_gauge a gauge',
        '# TYPE t_gauge gauge',
        't_gauge 7',
        '',
      ].join('\n'),
    );
    expect(registry.names()).toEqual(['t_total', 't_gauge']);
  });

  it('refuses a name registered twice, and a counter not named *_total', () => {
    const registry = new MetricsRegistry();
    registry.register(new Counter('dup_total', 'x'));
    expect(() => registry.register(new Counter('dup_total', 'y'))).toThrow(/twice/);
    expect(() => new Counter('requests', 'z')).toThrow(/must end in _total/);
  });

  it('gauges rebuilt at each scrape forget the label values that went away', () => {
    const registry = new MetricsRegistry();
    let agents = ['a', 'b'];
    registry.register(
      new Gauge('t_up', 'up', ['agent'], (g) => {
        g.clear();
        for (const agent of agents) g.set({ agent }, 1);
      }),
    );
    expect(registry.render()).toContain('t_up{agent="b"} 1');
    agents = ['a'];
    expect(registry.render()).not.toContain('agent="b"');
  });
});
