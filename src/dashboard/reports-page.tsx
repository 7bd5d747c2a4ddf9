// The Reports page: period averages for the figures a customer files (a financial year, a calendar
// year, a half, a quarter or a month), from the same operation as GET /averages, with the same CSV
// and workbook to download. Each view of a period is one metered request, as the API call is. The
// figures are written as the files write them (D48 in docs/decisions.md): the mean with 6 places,
// the rates with the decimals the RBA published.
import { publishedText } from '../domain/currencies.js';
import { meanText, type PeriodAverages } from '../rest/averages.js';
import { Layout, type PageAssets, type SignedInFrame } from './layout.js';

export interface ReportsData {
  planName: string;
  /** false on Free: the page explains what the paid plans give instead */
  available: boolean;
  /** the newest rate date stored (today in Sydney when none is), which decides the periods offered: none after it */
  newest: string;
  /** the period asked for (its canonical name), and its figures or why there are none */
  shown?: { period: string; averages?: PeriodAverages; refusal?: string };
}

interface PeriodGroup {
  label: string;
  periods: string[];
}

const FIRST_YEAR = 2018;

/** Every period from 2018 up to the one that contains `today`, newest first, by kind. */
export function periodChoices(today: string): PeriodGroup[] {
  const year = Number(today.slice(0, 4));
  const month = Number(today.slice(5, 7));
  const years = Array.from({ length: year - FIRST_YEAR + 1 }, (_, i) => year - i);
  const financialYears = (month >= 7 ? [year + 1, ...years] : years).filter((y) => y > FIRST_YEAR).map((y) => `FY${y}`);
  const halves = years.flatMap((y) => ['H2', 'H1'].map((h) => `${y}-${h}`)).filter((p) => p <= `${year}-H${month >= 7 ? 2 : 1}`);
  const quarters = years.flatMap((y) => ['Q4', 'Q3', 'Q2', 'Q1'].map((q) => `${y}-${q}`)).filter((p) => p <= `${year}-Q${Math.ceil(month / 3)}`);
  const months = years.flatMap((y) => Array.from({ length: 12 }, (_, i) => `${y}-${String(12 - i).padStart(2, '0')}`)).filter((p) => p <= today.slice(0, 7));
  return [
    { label: 'Financial years (1 July to 30 June)', periods: financialYears },
    { label: 'Calendar years', periods: years.map(String) },
    { label: 'Half years', periods: halves },
    { label: 'Quarters', periods: quarters },
    { label: 'Months', periods: months },
  ];
}

const fileLink = (format: 'csv' | 'xlsx', period: string, byMonth: boolean) =>
  `/dashboard/reports/${format}?period=${encodeURIComponent(period)}${byMonth ? '&interval=month' : ''}`;

/** A month's mean of a code as the files write it, or a dash when the code has none that month. */
function monthMean(month: NonNullable<PeriodAverages['months']>[number], code: string): string {
  const figures = month.rates.find((r) => r.code === code);
  return figures ? meanText(figures.mean) : '–';
}

function Figures({ averages, period }: { averages: PeriodAverages; period: string }) {
  const months = averages.months ?? [];
  const codes = averages.rates.map((r) => r.code);
  return (
    <>
      <section class="card" aria-labelledby="figures-title">
        <h2 id="figures-title">
          {period}: {averages.startDate} to {averages.endDate}
        </h2>
        {!averages.complete && <p class="banner">This period is still running: the figures cover the rate days published so far.</p>}
        <div class="table-scroll">
          <table class="figures">
            <caption>Per currency, units that 1 AUD buys</caption>
            <thead>
              <tr>
                <th scope="col">Currency</th>
                <th scope="col" class="number">
                  Average
                </th>
                <th scope="col" class="number">
                  End rate
                </th>
                <th scope="col" class="number">
                  Days
                </th>
                <th scope="col" class="number">
                  Lowest
                </th>
                <th scope="col" class="number">
                  Highest
                </th>
              </tr>
            </thead>
            <tbody>
              {averages.rates.map((r) => (
                <tr key={r.code}>
                  <th scope="row">{r.code}</th>
                  <td class="number">{meanText(r.mean)}</td>
                  <td class="number" title={`on ${r.last_date}`}>
                    {publishedText(r.code, r.end_rate)}
                  </td>
                  <td class="number">{r.days}</td>
                  <td class="number">{publishedText(r.code, r.min)}</td>
                  <td class="number">{publishedText(r.code, r.max)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p>
          <a href={fileLink('csv', period, false)} download>
            Download this table as CSV
          </a>{' '}
          ·{' '}
          <a href={fileLink('xlsx', period, false)} download>
            Download this table as an Excel workbook
          </a>
        </p>
        <p>
          <a href={fileLink('csv', period, true)} download>
            Download the months as CSV
          </a>{' '}
          ·{' '}
          <a href={fileLink('xlsx', period, true)} download>
            Download the months as an Excel workbook
          </a>
        </p>
        <p class="muted">The end rate is the rate on the last rate day of the period. Each download counts one more request.</p>
      </section>
      <section class="card" aria-labelledby="months-title">
        <h2 id="months-title">Month by month</h2>
        <p class="scroll-hint muted" id="months-hint">
          {`${codes.length} currencies side by side: scroll the table sideways to see them all. The month stays in view.`}
        </p>
        <div class="table-scroll wide" tabindex={0} role="region" aria-labelledby="months-title" aria-describedby="months-hint">
          <table class="figures months">
            <caption>Average of each month</caption>
            <thead>
              <tr>
                <th scope="col">Month</th>
                {codes.map((code) => (
                  <th key={code} scope="col" class="number">
                    {code}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {months.map((m) => (
                <tr key={m.month}>
                  <th scope="row">{m.month}</th>
                  {codes.map((code) => (
                    <td key={code} class="number">
                      {monthMean(m, code)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}

export function ReportsPage({ assets, frame, data }: { assets: PageAssets; frame: SignedInFrame; data: ReportsData }) {
  const { shown } = data;
  return (
    <Layout title="Reports" assets={assets} frame={frame}>
      <h1>Reports</h1>
      <p>
        The average rate of each currency over a financial year, a calendar year, a half, a quarter or a month, with the rate at its end, the number of rate
        days and the lowest and highest rate: the figures for books and tax returns, from the Reserve Bank of Australia&#39;s daily rates.
      </p>
      {!data.available ? (
        <section class="card">
          <h2>Reports come with a paid plan</h2>
          <p>Your {data.planName} plan does not include period averages. With a paid plan this page shows, for the period you pick:</p>
          <ul>
            <li>the average of each currency (exact, rounded to 6 decimal places), the number of rate days, the end rate, the lowest and the highest;</li>
            <li>the same figures month by month;</li>
            <li>both tables as CSV files or Excel workbooks to download.</li>
          </ul>
          <p>Starter gives periods that start within its last 30 days; Professional, Business and Enterprise any period from 2018.</p>
        </section>
      ) : (
        <section class="card">
          <form method="get" action="/dashboard/reports">
            <label for="period">Period</label>
            <select id="period" name="period" class="field">
              {periodChoices(data.newest).map((group) => (
                <optgroup key={group.label} label={group.label}>
                  {group.periods.map((p) => (
                    <option key={p} value={p} selected={p === shown?.period}>
                      {p}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>{' '}
            <button type="submit">Show figures</button>
          </form>
          <p class="muted">
            Showing a period counts one request against your {data.planName} plan, like the API call <code>GET /averages?period=…&amp;interval=month</code>.
          </p>
        </section>
      )}
      {shown?.refusal && (
        <p class="banner" role="alert">
          {shown.refusal}
        </p>
      )}
      {shown?.averages && <Figures averages={shown.averages} period={shown.period} />}
    </Layout>
  );
}
