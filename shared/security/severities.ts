/**
 * The severity buckets of findings, worst first: what the routes, the summary and the security gate
 * speak in (hub/src/security/severity.ts ranks them and maps scores to them). Free of valibot: the
 * web UI bundle imports it.
 */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'unknown'] as const;
export type Severity = (typeof SEVERITIES)[number];
