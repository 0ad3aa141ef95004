import type { ExpositionFormat } from '../../../shared/metrics/exposition-format';

/**
 * A small portable Prometheus registry: Prometheus text 0.0.4, or OpenMetrics 1.0.0 when the scraper
 * asks (the route adds OpenMetrics's `# EOF`). The hub core runs on Workers too, where prom-client's
 * Node built-ins are missing; the Node entry adds prom-client's process metrics beside these.
 */
type Labels = Readonly<Record<string, string>>;

interface Metric {
  readonly name: string;
  render(format: ExpositionFormat): string;
}

/** OpenMetrics escapes quotes in HELP too; Prometheus text only backslashes and newlines. */
function escapeHelp(help: string, format: ExpositionFormat): string {
  const escaped = help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  return format === 'openmetrics' ? escaped.replace(/"/g, '\\"') : escaped;
}

function header(family: string, help: string, type: string, format: ExpositionFormat): string[] {
  return [`# HELP ${family} ${escapeHelp(help, format)}`, `# TYPE ${family} ${type}`];
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function formatLabels(names: readonly string[], values: readonly string[], extra = ''): string {
  const parts = names.map((name, i) => `${name}="${escapeLabelValue(values[i] ?? '')}"`);
  if (extra) parts.push(extra);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function keyOf(names: readonly string[], labels: Labels): string[] {
  return names.map((name) => labels[name] ?? '');
}

export class Counter implements Metric {
  private readonly values = new Map<string, { labels: string[]; value: number }>();
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly labelNames: readonly string[] = [],
  ) {
    // OpenMetrics names the family without the suffix and every sample with it; promtool wants it too.
    if (!name.endsWith('_total')) throw new Error(`metrics: counter ${name} must end in _total`);
  }

  inc(labels: Labels = {}, amount = 1): void {
    const values = keyOf(this.labelNames, labels);
    const key = values.join('\u0001');
    const slot = this.values.get(key);
    if (slot) slot.value += amount;
    else this.values.set(key, { labels: values, value: amount });
  }

  render(format: ExpositionFormat): string {
    const family = format === 'openmetrics' ? this.name.slice(0, -'_total'.length) : this.name;
    const lines = header(family, this.help, 'counter', format);
    for (const { labels, value } of this.values.values()) {
      lines.push(`${this.name}${formatLabels(this.labelNames, labels)} ${value}`);
    }
    return lines.join('\n');
  }
}

export class Gauge implements Metric {
  private readonly values = new Map<string, { labels: string[]; value: number }>();
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly labelNames: readonly string[] = [],
    private readonly collect?: (gauge: Gauge) => void,
  ) {}

  /** Forgets every series: a gauge whose label values come and go (agents, containers) is rebuilt at each scrape. */
  clear(): void {
    this.values.clear();
  }

  set(labels: Labels, value: number): void {
    const values = keyOf(this.labelNames, labels);
    this.values.set(values.join('\u0001'), { labels: values, value });
  }

  render(format: ExpositionFormat): string {
    this.collect?.(this);
    const lines = header(this.name, this.help, 'gauge', format);
    for (const { labels, value } of this.values.values()) {
      lines.push(`${this.name}${formatLabels(this.labelNames, labels)} ${value}`);
    }
    return lines.join('\n');
  }
}

export class Histogram implements Metric {
  private readonly series = new Map<string, { labels: string[]; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly buckets: readonly number[],
  ) {}

  observe(labels: Labels, value: number): void {
    const values = keyOf(this.labelNames, labels);
    const key = values.join('\u0001');
    let slot = this.series.get(key);
    if (!slot) {
      slot = { labels: values, counts: new Array(this.buckets.length).fill(0), sum: 0, count: 0 };
      this.series.set(key, slot);
    }
    for (let i = 0; i < this.buckets.length; i++) {
      if (value <= (this.buckets[i] ?? Number.POSITIVE_INFINITY)) slot.counts[i] = (slot.counts[i] ?? 0) + 1;
    }
    slot.sum += value;
    slot.count += 1;
  }

  render(format: ExpositionFormat): string {
    const lines = header(this.name, this.help, 'histogram', format);
    for (const { labels, counts, sum, count } of this.series.values()) {
      this.buckets.forEach((bound, i) => {
        lines.push(`${this.name}_bucket${formatLabels(this.labelNames, labels, `le="${bound}"`)} ${counts[i] ?? 0}`);
      });
      lines.push(`${this.name}_bucket${formatLabels(this.labelNames, labels, 'le="+Inf"')} ${count}`);
      lines.push(`${this.name}_sum${formatLabels(this.labelNames, labels)} ${sum}`);
      lines.push(`${this.name}_count${formatLabels(this.labelNames, labels)} ${count}`);
    }
    return lines.join('\n');
  }
}

export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric>();

  register<M extends Metric>(metric: M): M {
    if (this.metrics.has(metric.name)) throw new Error(`metrics: ${metric.name} is registered twice`);
    this.metrics.set(metric.name, metric);
    return metric;
  }

  /** Every registered name, as exposed (counters with `_total`): what dashboards and alerts may name. */
  names(): string[] {
    return [...this.metrics.keys()];
  }

  render(format: ExpositionFormat = 'prometheus'): string {
    return `${[...this.metrics.values()].map((metric) => metric.render(format)).join('\n')}\n`;
  }
}
