import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type HubProcess, REPO_ROOT, startHubProcess } from '../support/hub-process';
import { type PrometheusServer, promtool, requirePrometheusTools, startPrometheus } from '../support/prometheus';
import { exposedSeriesNames, seriesNamesIn } from '../support/promql-names';

/**
 * Issue 17 item 7: the hub's /metrics, the shipped alert rules and the Grafana dashboard, checked by
 * Prometheus's own tools (promtool and a Prometheus server, unpacked from Debian's package by
 * scripts/ensure-testbed.mjs) against a real hub process.
 */

const ALERTS = join(REPO_ROOT, 'deploy', 'prometheus', 'alerts.yml');
const ALERT_TESTS = join(REPO_ROOT, 'deploy', 'prometheus', 'alerts.test.yml');
const DASHBOARD = join(REPO_ROOT, 'deploy', 'grafana', 'dockwatch-fleet.json');
/** Series Prometheus writes itself for every target. */
const SCRAPE_SERIES = new Set(['up']);

interface Panel {
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

function dashboardExpressions(): { where: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels: Panel[];
    templating: { list: { name: string; query: { query: string } }[] };
  };
  const found: { where: string; expr: string }[] = [];
  const visit = (panel: Panel) => {
    for (const target of panel.targets ?? []) found.push({ where: `panel "${panel.title}"`, expr: target.expr });
    for (const inner of panel.panels ?? []) visit(inner);
  };
  for (const panel of dashboard.panels) visit(panel);
  for (const variable of dashboard.templating.list) {
    // Grafana's label_values(metric, label): only the metric is a series name.
    const metric = /^label_values\(\s*([a-zA-Z_:][\w:]*)\s*,/.exec(variable.query.query)?.[1];
    found.push({ where: `variable $${variable.name}`, expr: metric ?? variable.query.query });
  }
  return found;
}

function alertExpressions(): { where: string; expr: string }[] {
  const rules = parse(readFileSync(ALERTS, 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };
  return rules.groups.flatMap((group) =>
    group.rules.map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
  );
}

/**
 * GET on a fresh connection: a pooled keep-alive socket left idle past the hub's 5 s keep-alive
 * (promtool test rules takes longer) can be closed under the next request.
 */
function getText(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      response.on('error', reject);
    }).on('error', reject);
  });
}

describe('Prometheus tooling against a real hub', () => {
  let hub: HubProcess;
  const scrape = async (headers?: Record<string, string>) => (await getText(`${hub.url}/metrics`, headers)).text;

  beforeAll(async () => {
    requirePrometheusTools();
    hub = await startHubProcess({
      DD_STORE_DRIVER: 'memory',
      DD_SERVER_METRICS_AUTH: 'false',
      DD_COMPAT_WUDCARD: 'true',
    });
    // Some traffic, a compat request among it.
    expect((await getText(`${hub.url}/api/containers`)).status).toBe(200);
    expect((await getText(`${hub.url}/health`)).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await hub?.kill();
  });

  it('promtool check metrics passes on /metrics', async () => {
    const text = await scrape();
    expect(text).toContain('dd_http_requests_total{method="GET",route="/api/v1/containers",status="200"} 1');
    const result = promtool(['check', 'metrics'], text);
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  });

  it('promtool check metrics would catch a gauge named *_total (the check is live)', () => {
    const bad = '# HELP x_total a gauge\n# TYPE x_total gauge\nx_total 1\n';
    const result = promtool(['check', 'metrics'], bad);
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('non-counter metrics should not have "_total" suffix');
  });

  it('promtool check rules accepts deploy/prometheus/alerts.yml', () => {
    const result = promtool(['check', 'rules', ALERTS]);
    expect(result.output).toContain('SUCCESS: 6 rules found');
    expect(result.status).toBe(0);
  });

  it('promtool test rules passes deploy/prometheus/alerts.test.yml', () => {
    const result = promtool(['test', 'rules', ALERT_TESTS]);
    expect(result.output).toContain('SUCCESS');
    expect(result.status).toBe(0);
  }, 60_000);

  it('every series named by the alert rules and the dashboard is exported by the hub', async () => {
    const exposed = exposedSeriesNames(await scrape());
    const expressions = [...alertExpressions(), ...dashboardExpressions()];
    expect(expressions.length).toBeGreaterThan(25);
    const missing: string[] = [];
    for (const { where, expr } of expressions) {
      const names = seriesNamesIn(expr);
      if (names.length === 0) missing.push(`${where}: names no series (${expr})`);
      for (const name of names) if (!exposed.has(name) && !SCRAPE_SERIES.has(name)) missing.push(`${where}: ${name}`);
    }
    expect(missing).toEqual([]);
  });

  describe('a real Prometheus server scraping the hub', () => {
    let prometheus: PrometheusServer;
    beforeAll(async () => {
      prometheus = await startPrometheus(new URL(hub.url).host, [ALERTS]);
    }, 30_000);
    afterAll(async () => {
      await prometheus?.stop();
    });

    it('negotiates OpenMetrics, parses it without error and loads the alert rules', async () => {
      type Targets = { activeTargets: { health: string; lastError: string; lastScrape: string }[] };
      let target: Targets['activeTargets'][number] | undefined;
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        target = (await prometheus.api<Targets>('targets')).activeTargets[0];
        if (target && target.health !== 'unknown') break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(target).toMatchObject({ health: 'up', lastError: '' });
      // OpenMetrics names a counter's family without `_total`; the Prometheus text format with it.
      const metadata = await prometheus.api<Record<string, { type: string }[]>>('metadata?metric=dd_http_requests');
      expect(metadata.dd_http_requests?.[0]?.type).toBe('counter');
      const scraped = await scrape({ accept: 'application/openmetrics-text; version=1.0.0' });
      expect(scraped.endsWith('# EOF\n')).toBe(true);

      type Rules = { groups: { rules: { name: string; health: string; lastError?: string }[] }[] };
      const rules = (await prometheus.api<Rules>('rules')).groups.flatMap((group) => group.rules);
      expect(rules.map((rule) => rule.name).sort()).toEqual([
        'DockwatchAgentDisconnected',
        'DockwatchHubDown',
        'DockwatchNotificationDeadLetters',
        'DockwatchRegistryErrors',
        'DockwatchUpdatePending',
        'DockwatchWatcherFailing',
      ]);
      for (const rule of rules) expect(rule.lastError ?? '', rule.name).toBe('');
    }, 40_000);

    it('runs every dashboard query (Grafana variables filled in) without a PromQL error', async () => {
      const errors: string[] = [];
      let answered = 0;
      for (const { where, expr } of dashboardExpressions()) {
        const query = expr.replaceAll('$__rate_interval', '1m').replaceAll('$instance', '.+');
        const response = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(query)}`);
        const body = (await response.json()) as { status: string; error?: string; data?: { result: unknown[] } };
        if (body.status !== 'success') errors.push(`${where}: ${body.error ?? response.status}`);
        else if ((body.data?.result.length ?? 0) > 0) answered += 1;
      }
      expect(errors).toEqual([]);
      // The fleet panels have data from the first scrapes (containers, outbox, HTTP, process memory).
      expect(answered).toBeGreaterThan(5);
    });
  });
});
