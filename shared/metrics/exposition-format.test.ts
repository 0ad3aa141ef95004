import { describe, expect, it } from 'vitest';
import { negotiateExpositionFormat } from './exposition-format';

describe('exposition format negotiation', () => {
  it('answers OpenMetrics to what Prometheus 2.x sends, and to a plain OpenMetrics Accept', () => {
    const prometheus =
      'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
    expect(negotiateExpositionFormat(prometheus)).toBe('openmetrics');
    expect(negotiateExpositionFormat('application/openmetrics-text')).toBe('openmetrics');
    expect(negotiateExpositionFormat('Application/OpenMetrics-Text; Version=1.0.0; charset=utf-8')).toBe('openmetrics');
  });

  it('answers Prometheus text otherwise', () => {
    expect(negotiateExpositionFormat(undefined)).toBe('prometheus');
    expect(negotiateExpositionFormat('*/*')).toBe('prometheus');
    expect(negotiateExpositionFormat('text/plain;version=0.0.4')).toBe('prometheus');
    // Only 0.0.1 offered (a version this hub does not write), or OpenMetrics below text, or refused.
    expect(negotiateExpositionFormat('application/openmetrics-text;version=0.0.1')).toBe('prometheus');
    expect(negotiateExpositionFormat('application/openmetrics-text;q=0.2,text/plain;q=0.9')).toBe('prometheus');
    expect(negotiateExpositionFormat('application/openmetrics-text;q=0')).toBe('prometheus');
  });
});
