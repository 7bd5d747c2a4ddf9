// The RBA's RSS feed of the day's rates (rss-cb-exchange-rates.xml): RSS 1.0
// (RDF) with one item per series, in the central-bank "cb" vocabulary:
//
//   <item rdf:about="…/exchange-rates.html#USD">
//     <dc:date>2021-04-01T16:45:00+11:00</dc:date>
//     <cb:statistics><cb:exchangeRate>
//       <cb:observation><cb:value>0.7543</cb:value><cb:unit>USD</cb:unit></cb:observation>
//       <cb:baseCurrency>AUD</cb:baseCurrency><cb:targetCurrency>USD</cb:targetCurrency>
//       <cb:observationPeriod><cb:frequency>daily</cb:frequency><cb:period>2021-04-01</cb:period></cb:observationPeriod>
//     </cb:exchangeRate></cb:statistics>
//   </item>
//
// Elements are matched by namespace URI (rdf, dc) or by local name (the cb
// vocabulary, whose URI carries a version), never by their prefix.

import { type PublishedCode, PUBLISHED_CODES } from '../domain/currencies.js';
import { unitToCode } from './codes.js';
import { isValidIsoDate } from '../domain/calendar.js';
import { isoDatePart } from './dates.js';
import { isPlainDecimal } from '../domain/decimal.js';
import { atLine, formatError } from './errors.js';
import type { RbaDay, RbaTable } from './types.js';
import { type XmlElement, child, children, parseXml, path } from './xml.js';

const RDF_NS = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const DC_NS = 'http://purl.org/dc/elements/1.1/';

const fail = (line: number, what: string) => formatError(atLine, line, what);

const textOf = (el: XmlElement | undefined): string => (el ? el.text.trim() : '');

function dcDate(el: XmlElement | undefined): { text: string; iso: string | null; line: number } | null {
  const d = el && child(el, 'date', DC_NS);
  if (!d) return null;
  const text = textOf(d);
  return { text, iso: isoDatePart(text), line: d.line };
}

export function parseRbaRss(input: string): RbaTable {
  const root = parseXml(input);
  const isRdf = root.local === 'RDF' && root.ns === RDF_NS;
  const isRss2 = root.local === 'rss' && root.ns === null;
  if (!isRdf && !isRss2) {
    throw fail(root.line, `the XML root element is <${root.qname}>, not an RSS feed (expected rdf:RDF, as in rss-cb-exchange-rates.xml)`);
  }
  const channel = child(root, 'channel');
  const channelDate = dcDate(channel);
  if (channelDate && !channelDate.iso) {
    throw fail(channelDate.line, `channel dc:date '${channelDate.text}' is not an ISO date`);
  }

  // RSS 1.0 puts the items beside the channel; RSS 2.0 inside it.
  const items = [...children(root, 'item'), ...(channel ? children(channel, 'item') : [])];
  if (items.length === 0) throw fail(root.line, 'the feed has no items');

  const byDate = new Map<string, { rates: Partial<Record<PublishedCode, string>>; lines: Map<PublishedCode, number> }>();
  for (const item of items) {
    const rate = path(item, 'statistics', 'exchangeRate');
    if (!rate) throw fail(item.line, 'the item has no cb:statistics/cb:exchangeRate');

    const base = child(rate, 'baseCurrency');
    if (textOf(base).toUpperCase() !== 'AUD') {
      const what = base ? `base currency '${textOf(base)}'` : 'no cb:baseCurrency';
      throw fail(base?.line ?? rate.line, `the item has ${what}; RBA rates are A$1 = x units (base AUD)`);
    }

    const observation = child(rate, 'observation');
    const valueEl = observation && child(observation, 'value');
    if (!valueEl) throw fail(rate.line, 'the item has no cb:observation/cb:value');
    const value = textOf(valueEl);
    if (!isPlainDecimal(value)) throw fail(valueEl.line, `'${value}' is not a plain non-negative decimal`);

    const target = textOf(child(rate, 'targetCurrency'));
    const unit = textOf(observation && child(observation, 'unit'));
    const code: PublishedCode | null = target.toUpperCase() === 'TWI' || unit.toLowerCase() === 'index' ? 'TWI' : unitToCode(target);

    const date = itemDate(item, rate, channelDate?.iso ?? null);
    if (!code) continue; // a series we do not serve

    let day = byDate.get(date);
    if (!day) byDate.set(date, (day = { rates: {}, lines: new Map() }));
    const earlier = day.lines.get(code);
    if (earlier !== undefined) throw fail(item.line, `a second ${code} rate for ${date} (first on line ${earlier})`);
    day.lines.set(code, item.line);
    day.rates[code] = value;
  }

  if (byDate.size === 0) {
    throw fail(root.line, `the feed has no rate for any of the codes we serve (${PUBLISHED_CODES.join(', ')})`);
  }
  const days: RbaDay[] = [...byDate.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([date, { rates }]) => ({ date, rates }));
  return { format: 'rss', publicationDate: channelDate?.iso ?? null, days };
}

// An item's date: its observation period, else the date part of its dc:date,
// else that of the channel's dc:date (Sydney time as written, not UTC).
function itemDate(item: XmlElement, rate: XmlElement, channelDate: string | null): string {
  const period = path(rate, 'observationPeriod', 'period');
  if (period) {
    const periodText = textOf(period);
    const iso = isValidIsoDate(periodText) ? periodText : null;
    if (!iso) throw fail(period.line, `observation period '${textOf(period)}' is not a date (YYYY-MM-DD)`);
    return iso;
  }
  const own = dcDate(item);
  if (own) {
    if (!own.iso) throw fail(own.line, `item dc:date '${own.text}' is not an ISO date`);
    return own.iso;
  }
  if (channelDate) return channelDate;
  throw fail(item.line, 'the item has no date (no cb:observationPeriod/cb:period, no dc:date, and no channel dc:date)');
}
