import { describe, expect, it } from 'vitest';
import { RbaFormatError, parseRbaFile, parseRbaRss } from '../../src/rba/index.js';
import { fixtureText, refusal } from './fixtures.js';

// rss-cb-exchange-rates.xml: a full feed for 11 May 2026 with items USD, JPY,
// IDR, PGK (not served), TWI (unit Index) and SDR, each with a per-item dc:date
// and cb:observationPeriod/cb:period.
// rss-cb-exchange-rates-minimal.xml: the trimmed layout (USD and CNY items, no
// item dc:date, no observation period, cb:unit AUD), channel dc:date
// 2024-01-02T01:30:00+11:00 (which is still 1 January in UTC).
const full = fixtureText('rss-cb-exchange-rates.xml');
const minimal = fixtureText('rss-cb-exchange-rates-minimal.xml');

// The item block for a code in the full fixture, and a way to edit it.
const itemOf = (xml: string, code: string): string => {
  const start = xml.indexOf(`<item rdf:about="https://www.rba.gov.au/statistics/frequency/exchange-rates.html#${code}">`);
  return xml.slice(start, xml.indexOf('</item>', start) + '</item>'.length);
};
const editItem = (xml: string, code: string, edit: (item: string) => string): string => xml.replace(itemOf(xml, code), edit(itemOf(xml, code)));
const lineOf = (xml: string, needle: string): number => xml.slice(0, xml.indexOf(needle)).split('\n').length;

describe('parseRbaRss on a full feed', () => {
  const table = parseRbaRss(full);

  it('reads the day, TWI included and PGK ignored', () => {
    expect(table).toEqual({
      format: 'rss',
      publicationDate: '2026-05-11',
      days: [{ date: '2026-05-11', rates: { USD: '0.7013', JPY: '109.02', IDR: '11935', TWI: '64.60', SDR: '0.5117' } }],
    });
  });

  it('takes each item date from its observation period first, grouping items into days', () => {
    const xml = editItem(full, 'USD', (i) => i.replace('<cb:period>2026-05-11</cb:period>', '<cb:period>2026-05-08</cb:period>'));
    expect(parseRbaRss(xml).days).toEqual([
      { date: '2026-05-08', rates: { USD: '0.7013' } },
      { date: '2026-05-11', rates: { JPY: '109.02', IDR: '11935', TWI: '64.60', SDR: '0.5117' } },
    ]);
  });

  it('falls back to the item dc:date (its local date, as written) without a period', () => {
    let xml = full.replace(/\s*<cb:observationPeriod[\s\S]*?<\/cb:observationPeriod>/g, '');
    xml = editItem(xml, 'JPY', (i) => i.replace('<dc:date>2026-05-11T16:00:00+10:00</dc:date>', '<dc:date>2026-05-12T07:00:00+10:00</dc:date>'));
    expect(parseRbaRss(xml).days.map((d) => [d.date, Object.keys(d.rates)])).toEqual([
      ['2026-05-11', ['USD', 'IDR', 'TWI', 'SDR']],
      ['2026-05-12', ['JPY']],
    ]);
  });

  it('maps unit Index to TWI whatever the target currency says', () => {
    const xml = editItem(full, 'TWI', (i) =>
      i.replace('<cb:targetCurrency>TWI</cb:targetCurrency>', '<cb:targetCurrency>Trade-weighted index</cb:targetCurrency>'),
    );
    expect(parseRbaRss(xml).days[0]!.rates.TWI).toBe('64.60');
  });

  it('does not depend on the namespace prefixes', () => {
    const renamed = full
      .replace('xmlns:cb="http://www.cbwiki.net/wiki/index.php/Specification_1.2/"', 'xmlns:stats="http://www.cbwiki.net/wiki/index.php/Specification_1.2/"')
      .replace(/(<\/?)cb:/g, '$1stats:')
      .replace('xmlns:dc="http://purl.org/dc/elements/1.1/"', 'xmlns:meta="http://purl.org/dc/elements/1.1/"')
      .replace(/(<\/?)dc:/g, '$1meta:')
      .replace('xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"', 'xmlns:r="http://www.w3.org/1999/02/22-rdf-syntax-ns#"')
      .replace(/(<\/?)rdf:/g, '$1r:')
      .replace(/ rdf:/g, ' r:');
    expect(renamed).not.toContain('cb:');
    expect(parseRbaRss(renamed)).toEqual(parseRbaRss(full));
  });

  it('finds dc:date by its namespace, not its prefix', () => {
    // A 'dc:date' whose prefix is bound to another namespace is not the publication date.
    const xml = full.replace(
      '<dc:date>2026-05-11T16:00:00+10:00</dc:date>\n    <items>',
      '<dc:date xmlns:dc="urn:example:other">2026-05-11T16:00:00+10:00</dc:date>\n    <items>',
    );
    expect(parseRbaRss(xml).publicationDate).toBeNull();
    expect(parseRbaRss(xml).days[0]!.date).toBe('2026-05-11');
  });

  it('decodes character references and predefined entities in values', () => {
    const xml = editItem(full, 'USD', (i) => i.replace('<cb:value>0.7013</cb:value>', '<cb:value>&#x30;.7013</cb:value>'));
    expect(parseRbaRss(xml).days[0]!.rates.USD).toBe('0.7013');
  });
});

describe('parseRbaRss on the trimmed layout', () => {
  it('dates the items by the channel dc:date, taking the Sydney date as written', () => {
    expect(parseRbaRss(minimal)).toEqual({
      format: 'rss',
      publicationDate: '2024-01-02',
      days: [{ date: '2024-01-02', rates: { USD: '0.6781', CNY: '4.8402' } }],
    });
  });

  it('accepts a BOM and a feed without any dates at the channel level if items have one', () => {
    const xml =
      '\uFEFF' +
      minimal
        .replace('<dc:date>2024-01-02T01:30:00+11:00</dc:date>', '')
        .replace(
          '<cb:statistics rdf:parseType="Resource">\n      <cb:exchangeRate rdf:parseType="Resource">\n        <cb:observation rdf:parseType="Resource">\n          <cb:value>0.6781',
          '<dc:date>2023-12-29T16:00:00+11:00</dc:date>\n    <cb:statistics rdf:parseType="Resource">\n      <cb:exchangeRate rdf:parseType="Resource">\n        <cb:observation rdf:parseType="Resource">\n          <cb:value>0.6781',
        );
    // USD has its own dc:date; CNY has none and no channel date to fall back on.
    refusal(
      () => parseRbaRss(xml),
      lineOf(xml, '<item rdf:about="https://www.rba.gov.au/statistics/frequency/exchange-rates.html#CNY">'),
      'the item has no date',
    );
    const usdOnly = xml.replace(itemOf(xml, 'CNY'), '');
    expect(parseRbaRss(usdOnly)).toEqual({ format: 'rss', publicationDate: null, days: [{ date: '2023-12-29', rates: { USD: '0.6781' } }] });
  });
});

describe('parseRbaRss refusals', () => {
  it('refuses a base currency other than AUD', () => {
    const xml = editItem(full, 'JPY', (i) => i.replace('<cb:baseCurrency>AUD</cb:baseCurrency>', '<cb:baseCurrency>USD</cb:baseCurrency>'));
    const line = lineOf(xml, '<cb:baseCurrency>USD');
    refusal(() => parseRbaRss(xml), line, `line ${line}: the item has base currency 'USD'`);
  });

  it('refuses a malformed value, naming its line', () => {
    for (const bad of ['1e3', '-0.7', 'abc', '']) {
      const xml = editItem(full, 'IDR', (i) => i.replace('<cb:value>11935</cb:value>', `<cb:value>${bad}</cb:value>`));
      const line = lineOf(xml, `<cb:value>${bad}</cb:value>`);
      refusal(() => parseRbaRss(xml), line, `line ${line}: '${bad}' is not a plain non-negative decimal`);
    }
  });

  it('refuses a bad observation period', () => {
    const xml = editItem(full, 'SDR', (i) => i.replace('<cb:period>2026-05-11</cb:period>', '<cb:period>2026-02-30</cb:period>'));
    refusal(() => parseRbaRss(xml), lineOf(xml, '2026-02-30'), "observation period '2026-02-30' is not a date");
  });

  it('refuses two rates for the same code and day', () => {
    const xml = full.replace('</rdf:RDF>', `${itemOf(full, 'USD')}\n</rdf:RDF>`);
    const second = xml.lastIndexOf('<item rdf:about="https://www.rba.gov.au/statistics/frequency/exchange-rates.html#USD">');
    const line = xml.slice(0, second).split('\n').length;
    refusal(() => parseRbaRss(xml), line, `line ${line}: a second USD rate for 2026-05-11 (first on line ${lineOf(xml, '#USD">')})`);
  });

  it('refuses an item without an exchange rate', () => {
    const xml = editItem(full, 'USD', (i) => i.replace(/<cb:statistics[\s\S]*<\/cb:statistics>/, ''));
    refusal(() => parseRbaRss(xml), lineOf(xml, '#USD">'), 'the item has no cb:statistics/cb:exchangeRate');
  });

  it('refuses a feed with no code we serve', () => {
    const pgkOnly = full.replace(/\s*<item [\s\S]*<\/item>/, `\n  ${itemOf(full, 'PGK')}`);
    refusal(() => parseRbaRss(pgkOnly), 2, 'line 2: the feed has no rate for any of the codes we serve');
  });

  it('refuses XML that is not an RSS feed', () => {
    refusal(
      () => parseRbaRss('<?xml version="1.0"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><entry/></feed>'),
      2,
      'line 2: the XML root element is <feed>, not an RSS feed',
    );
    refusal(() => parseRbaRss('<RDF><item/></RDF>'), 1, 'line 1: the XML root element is <RDF>, not an RSS feed');
  });

  it('counts lines dropped before the XML declaration', () => {
    const xml = '\n\n' + editItem(full, 'IDR', (i) => i.replace('<cb:value>11935</cb:value>', '<cb:value>x</cb:value>'));
    refusal(() => parseRbaRss(xml), lineOf(xml, '<cb:value>x'), "'x' is not a plain non-negative decimal");
    const noCb = '\n\n' + minimal.replace(' xmlns:cb="http://www.cbwiki.net/wiki/index.php/Specification_1.2/"', '');
    refusal(() => parseRbaRss(noCb), lineOf(noCb, '<cb:statistics'), "the namespace prefix 'cb'");
    refusal(() => parseRbaRss('\n\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n<item>\n</rdf:RDF>'), 5, /^line 5: not well-formed XML/);
  });

  it('refuses a feed cut off anywhere: the document does not parse to its end', () => {
    const whole = full.trimEnd();
    for (let cut = 1; cut < whole.length; cut += 7)
      expect(() => parseRbaFile(new TextEncoder().encode(whole.slice(0, cut))), `cut at ${cut}`).toThrow(RbaFormatError);
    expect(() => parseRbaFile(new TextEncoder().encode(whole.slice(0, -1)))).toThrow(RbaFormatError);
  });

  it('refuses XML that is not well-formed', () => {
    refusal(() => parseRbaRss('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n<item>\n</rdf:RDF>'), 3, /^line 3: not well-formed XML/);
  });

  it('refuses an undeclared namespace prefix', () => {
    const xml = minimal.replace(' xmlns:cb="http://www.cbwiki.net/wiki/index.php/Specification_1.2/"', '');
    refusal(() => parseRbaRss(xml), lineOf(xml, '<cb:statistics'), "the namespace prefix 'cb' of <cb:statistics> is not declared");
  });

  it('refuses DTD entity declarations instead of expanding them', () => {
    const bomb = `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [
  <!ENTITY a "0.6781">
  <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
]>
${minimal.replace('<?xml version="1.0" encoding="UTF-8"?>\n', '').replace('0.6781', '&b;')}`;
    refusal(() => parseRbaRss(bomb), 3, 'line 3: the document declares DTD entities, which are not accepted');
  });
});
