/**
 * The two text formats /metrics speaks: Prometheus text 0.0.4 (the default) and OpenMetrics 1.0.0
 * for scrapers that ask for it. A contract between the hub's own registry and a runtime's metrics
 * (HubDeps.runtimeMetrics), so it lives here rather than in either.
 */
export type ExpositionFormat = 'prometheus' | 'openmetrics';

export const EXPOSITION_CONTENT_TYPES: Readonly<Record<ExpositionFormat, string>> = {
  prometheus: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};

/** OpenMetrics ends an exposition with this line; Prometheus text has no end marker. */
export const OPENMETRICS_EOF = '# EOF\n';

interface MediaRange {
  type: string;
  params: Map<string, string>;
  q: number;
}

function parseMediaRange(part: string): MediaRange {
  const [type = '', ...rest] = part.split(';').map((piece) => piece.trim());
  const params = new Map<string, string>();
  for (const param of rest) {
    const equals = param.indexOf('=');
    if (equals > 0) params.set(param.slice(0, equals).trim().toLowerCase(), param.slice(equals + 1).trim());
  }
  const q = Number(params.get('q') ?? '1');
  return { type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0 };
}

/**
 * OpenMetrics when the Accept header offers `application/openmetrics-text` (version 1.0.0 or none, the
 * one this hub writes) at least as high as the Prometheus text format; Prometheus text otherwise,
 * including without an Accept header. Prometheus itself sends both, OpenMetrics first.
 */
export function negotiateExpositionFormat(accept: string | undefined): ExpositionFormat {
  if (!accept) return 'prometheus';
  let openMetrics = 0;
  let text = 0;
  for (const range of accept.split(',').map(parseMediaRange)) {
    const version = range.params.get('version');
    if (range.type === 'application/openmetrics-text' && (version === undefined || version === '1.0.0'))
      openMetrics = Math.max(openMetrics, range.q);
    else if (range.type === 'text/plain' || range.type === 'text/*' || range.type === '*/*')
      text = Math.max(text, range.q);
  }
  return openMetrics > 0 && openMetrics >= text ? 'openmetrics' : 'prometheus';
}
