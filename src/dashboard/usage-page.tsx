// The Usage page: the quota's count as Overview shows it, with the refused requests apart; requests
// per day as a chart drawn on the server (SVG, no script), with the same numbers in tables for
// anyone who cannot see the chart; and the current period by endpoint, key and outcome.
import { routes } from '../rest/routes.js';
import { count, dateInWords } from './formats.js';
import { Layout, type PageAssets, type SignedInFrame } from './layout.js';
import { QuotaFacts, type Quota } from './overview-page.js';

export interface PeriodUsage {
  from: string;
  to: string;
  totalRequests: number;
  refusedRequests: number;
  days: { day: string; requests: number }[];
  byEndpoint: { endpoint: string; requests: number }[];
  byKey: { keyId: string; prefix: string; lastFour: string; requests: number }[];
  byOutcome: { outcome: string; requests: number }[];
}

export interface UsageData {
  planName: string;
  /** false on Free: one allowance since sign-up, no periods */
  resets: boolean;
  /** the quota's own count, the one Overview shows */
  quota: Quota;
  current: PeriodUsage;
  previous: PeriodUsage | null;
}

const OUTCOME_NAMES: Record<string, string> = {
  SUCCESS: 'Success (2xx)',
  NOT_MODIFIED: 'Not modified (304)',
  CLIENT_ERROR: 'Client error (4xx)',
  RATE_LIMITED: 'Rate limited (429)',
  SERVER_ERROR: 'Server error (5xx)',
};

/** The paths a customer calls, by the operation names usage is recorded under (RateDay is /{date}). */
const ENDPOINT_PATHS = new Map(routes.map((route) => [route.name, route.path.replace(/:(\w+)/g, '{$1}')]));
const endpointPath = (name: string): string => ENDPOINT_PATHS.get(name) ?? name;

const requestCount = (n: number) => `${count.format(n)} request${n === 1 ? '' : 's'}`;

const shortDate = new Intl.DateTimeFormat('en-AU', { timeZone: 'UTC', day: 'numeric', month: 'short' });
const dayLabel = (day: string) => shortDate.format(new Date(`${day}T00:00:00Z`));

/** A round number at or above `n`, so the axis reads 0 – 50 rather than 0 – 47. */
function axisTop(n: number): number {
  if (n <= 4) return 4;
  const magnitude = 10 ** Math.floor(Math.log10(n));
  const step = [1, 2, 2.5, 5, 10].find((s) => s * magnitude >= n)!;
  return step * magnitude;
}

const CHART = { width: 640, height: 220, left: 60, right: 8, top: 12, bottom: 30 };

/** Bars of the current period's days, each beside the same day of the previous period. */
function UsageChart({ current, previous, resets }: { current: PeriodUsage; previous: PeriodUsage | null; resets: boolean }) {
  const slots = Math.max(current.days.length, previous?.days.length ?? 0);
  const top = axisTop(Math.max(...current.days.map((d) => d.requests), ...(previous?.days.map((d) => d.requests) ?? [0])));
  const plotWidth = CHART.width - CHART.left - CHART.right;
  const plotHeight = CHART.height - CHART.top - CHART.bottom;
  const slot = plotWidth / slots;
  // a few days (Free's first ones) make wide slots: bars stay bars
  const barWidth = Math.min(previous ? slot * 0.4 : slot * 0.7, 24);
  const y = (requests: number) => CHART.top + plotHeight - (requests / top) * plotHeight;
  const bar = (d: { day: string; requests: number }, x: number, series: string, what: string) => (
    <rect
      class={`bar ${series}`}
      x={x.toFixed(1)}
      y={y(d.requests).toFixed(1)}
      width={barWidth.toFixed(1)}
      height={(CHART.top + plotHeight - y(d.requests)).toFixed(1)}
    >
      <title>{`${what}, ${dayLabel(d.day)}: ${requestCount(d.requests)}`}</title>
    </rect>
  );
  const labelEvery = Math.ceil(slots / 8);
  const description = resets
    ? `Requests per Sydney date from ${dateInWords(current.from)} to ${dateInWords(current.to)}, beside the same day of the previous period${previous ? ` (${dateInWords(previous.from)} to ${dateInWords(previous.to)})` : ''}. The tallest bar is ${count.format(top)} or fewer.`
    : `Requests per Sydney date over the last ${current.days.length === 1 ? 'day' : `${current.days.length} days`} of the one-time allowance.`;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${CHART.width} ${CHART.height}`} role="img" aria-labelledby="chart-title chart-desc">
        <title id="chart-title">Requests per day</title>
        <desc id="chart-desc">{description}</desc>
        {[0, top / 2, top].filter(Number.isInteger).map((tick) => (
          <g key={tick} class="tick">
            <line x1={CHART.left} x2={CHART.width - CHART.right} y1={y(tick)} y2={y(tick)} />
            <text x={CHART.left - 6} y={y(tick) + 4} text-anchor="end">
              {count.format(tick)}
            </text>
          </g>
        ))}
        {Array.from({ length: slots }, (_, i) => {
          const x = CHART.left + i * slot + (slot - (previous ? barWidth * 2 : barWidth)) / 2;
          const now = current.days[i];
          const before = previous?.days[i];
          return (
            <g key={i}>
              {before && bar(before, x, 'previous', 'Previous period')}
              {now && bar(now, previous ? x + barWidth : x, 'current', resets ? 'This period' : 'Requests')}
              {i % labelEvery === 0 && now && (
                <text class="day" x={(CHART.left + (i + 0.5) * slot).toFixed(1)} y={CHART.height - 8} text-anchor="middle">
                  {dayLabel(now.day)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption class="legend">
        <span class="swatch current" aria-hidden="true"></span> {resets ? `This period (from ${dayLabel(current.from)})` : 'Requests'}
        {previous && (
          <>
            {' '}
            <span class="swatch previous" aria-hidden="true"></span> {`Previous period (from ${dayLabel(previous.from)})`}
          </>
        )}
      </figcaption>
    </figure>
  );
}

function CountTable<T extends { requests: number }>({ caption, column, rows, name }: { caption: string; column: string; rows: T[]; name: (row: T) => string }) {
  if (rows.length === 0) return null;
  return (
    <div class="table-scroll">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{column}</th>
            <th scope="col" class="number">
              Requests
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={name(row)}>
              <td>{name(row)}</td>
              <td class="number">{count.format(row.requests)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function UsagePage({ assets, frame, data }: { assets: PageAssets; frame: SignedInFrame; data: UsageData }) {
  const { current, previous, resets, quota } = data;
  const periodName = resets ? 'this period' : 'the one-time allowance';
  return (
    <Layout title="Usage" assets={assets} frame={frame}>
      <h1>Usage</h1>
      <section class="card" aria-labelledby="quota-heading">
        <h2 id="quota-heading">{resets ? 'Requests this billing period' : 'Requests of the one-time allowance'}</h2>
        <p class="muted">
          {resets
            ? `This billing period began on ${dateInWords(current.from)}. The count below is the quota's own, the same as on the Overview page.`
            : `The ${data.planName} plan's requests are a one-time allowance that never resets, used since ${dateInWords(current.from)} (Sydney date). The count below is the allowance's own, the same as on the Overview page.`}
        </p>
        <QuotaFacts quota={quota} refused={current.refusedRequests} resets={resets} />
        {previous && (
          <dl class="facts">
            <dt>Previous period</dt>
            <dd>{`${dateInWords(previous.from)} to ${dateInWords(previous.to)} (Sydney dates): ${requestCount(previous.totalRequests - previous.refusedRequests)} counted, ${count.format(previous.refusedRequests)} refused`}</dd>
          </dl>
        )}
      </section>
      <section class="card" aria-labelledby="per-day-heading">
        <h2 id="per-day-heading">Requests per day</h2>
        <p class="muted">Every answered request, counted or refused, by Sydney date. Requests appear here within a few seconds.</p>
        <UsageChart current={current} previous={previous} resets={resets} />
        <details>
          <summary>The numbers per day</summary>
          <div class="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">{resets ? 'This period (Sydney date)' : 'Sydney date'}</th>
                  <th scope="col" class="number">
                    Requests
                  </th>
                  {previous && (
                    <>
                      <th scope="col">Previous period</th>
                      <th scope="col" class="number">
                        Requests
                      </th>
                    </>
                  )}
                </tr>
              </thead>
              <tbody>
                {Array.from({ length: Math.max(current.days.length, previous?.days.length ?? 0) }, (_, i) => (
                  <tr key={i}>
                    <td>{current.days[i] ? dateInWords(current.days[i].day) : ''}</td>
                    <td class="number">{current.days[i] ? count.format(current.days[i].requests) : ''}</td>
                    {previous && (
                      <>
                        <td>{previous.days[i] ? dateInWords(previous.days[i].day) : ''}</td>
                        <td class="number">{previous.days[i] ? count.format(previous.days[i].requests) : ''}</td>
                      </>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      </section>
      <section class="card stack" aria-labelledby="breakdown-heading">
        <h2 id="breakdown-heading">{`Requests of ${periodName} by endpoint, key and outcome`}</h2>
        {current.totalRequests === 0 ? (
          <p class="muted">{resets ? "No requests with this account's keys this period yet." : "No requests with this account's keys yet."}</p>
        ) : (
          <>
            <p class="muted">Every answered request, counted or refused, by Sydney date.</p>
            <CountTable caption="By endpoint" column="Endpoint" rows={current.byEndpoint} name={(r) => endpointPath(r.endpoint)} />
            <CountTable caption="By key" column="Key" rows={current.byKey} name={(r) => `${r.prefix}_…${r.lastFour}`} />
            <CountTable caption="By outcome" column="Outcome" rows={current.byOutcome} name={(r) => OUTCOME_NAMES[r.outcome] ?? r.outcome} />
          </>
        )}
      </section>
    </Layout>
  );
}
