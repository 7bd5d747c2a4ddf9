// The package ships no types: it returns prom2json-shaped families (see test/support/prometheus.ts).
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
