// Scrapes GET /metrics on the internal port and parses it with a Prometheus text-format parser.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { expect } from 'vitest';
import { OPERATOR_TOKEN, type TestApp } from './app.js';

export interface Sample {
  labels?: Record<string, string>;
  value?: string;
  count?: string;
  sum?: string;
  buckets?: Record<string, string>;
}
export interface MetricFamily {
  name: string;
  help: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: Sample[];
}

export interface Scrape {
  families: Map<string, MetricFamily>;
  text: string;
}

export async function scrape(t: TestApp): Promise<Scrape> {
  const response = await t.app.internal.fetch('http://internal.test/metrics', { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } });
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  const text = await response.text();
  const families = parsePrometheusTextFormat(text) as MetricFamily[];
  return { families: new Map(families.map((family) => [family.name, family])), text };
}

/**
 * A histogram series' `_count` or `_sum` (0 when absent). The parser merges a labelled histogram's
 * series into one sample, so these are read from the exposition's own line, labels in the order
 * the metric declares them.
 */
export function seriesValue({ text }: Scrape, name: string, labels: Record<string, string> = {}): number {
  const labelText = Object.entries(labels)
    .map(([label, value]) => `${label}="${value}"`)
    .join(',');
  const line = `${name}${labelText ? `{${labelText}}` : ''} `;
  const found = text.split('\n').find((l) => l.startsWith(line));
  return found === undefined ? 0 : Number(found.slice(line.length));
}

/** The sample of `name` whose labels are exactly `labels`. */
export function sample({ families }: Scrape, name: string, labels: Record<string, string> = {}): Sample | undefined {
  const family = families.get(name);
  if (!family) throw new Error(`no metric ${name}`);
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return family.metrics.find((m) => JSON.stringify(Object.entries(m.labels ?? {}).sort()) === wanted);
}
