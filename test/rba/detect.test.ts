import { describe, expect, it } from 'vitest';
import { RbaFormatError, parseRbaCsv, parseRbaFile } from '../../src/rba/index.js';
import { fixtureBytes, fixtureText, refusal } from './fixtures.js';

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('parseRbaFile tells the form from the content', () => {
  it('reads each fixture in its own form', () => {
    expect(parseRbaFile(fixtureBytes('f11.1-data.csv')).format).toBe('csv');
    expect(parseRbaFile(fixtureBytes('f11.1-data-excel-resaved.csv')).format).toBe('csv');
    expect(parseRbaFile(fixtureBytes('f11.1-hist.xls')).format).toBe('xls');
    expect(parseRbaFile(fixtureBytes('rss-cb-exchange-rates.xml')).format).toBe('rss');
  });

  it('ignores the name: a CSV called .xls is still read as CSV', () => {
    const table = parseRbaFile(fixtureBytes('f11.1-data.csv'), 'f11.1-data.xls');
    expect(table).toEqual(parseRbaCsv(fixtureText('f11.1-data.csv')));
    expect(table.days).toHaveLength(8);
  });

  it('reads XML after a BOM and leading whitespace', () => {
    const xml = '\uFEFF \n' + fixtureText('rss-cb-exchange-rates-minimal.xml');
    expect(parseRbaFile(bytesOf(xml)).days[0]!.rates.USD).toBe('0.6781');
  });
});

describe('parseRbaFile refuses what is not one of the three forms', () => {
  it.each([
    ['an empty file', new Uint8Array(0), 'line 1: the file is empty'],
    ['whitespace', bytesOf(' \r\n\t\n'), 'line 1: the file is empty (only whitespace)'],
    ['a PDF', bytesOf('%PDF-1.7\n%âãÏÓ\n1 0 obj\n'), 'line 1: this is a PDF document'],
    ['an HTML page', bytesOf('<!DOCTYPE html>\n<html><head><title>Error</title></head></html>'), 'line 1: this is an HTML page'],
    ['a bare HTML page', bytesOf('\n<html lang="en"><body>Not found</body></html>'), 'line 1: this is an HTML page'],
    ['binary data', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), 'line 1: this is a binary file'],
    ['UTF-16 text', new Uint8Array([0xff, 0xfe, 0x46, 0x00, 0x31, 0x00]), 'line 1: the file is UTF-16 text'],
    ['JSON', bytesOf('{"USD": 0.6828}'), 'line 1: not readable as CSV'],
    ['plain text', bytesOf('Exchange rates\nUSD 0.6828\n'), "line 1: no 'Units' row and no data rows found"],
    ['the monthly table', fixtureBytes('f11-data-monthly.csv'), 'line 1: this is the monthly table F11'],
  ])('refuses %s', (_what, bytes, message) => {
    refusal(() => parseRbaFile(bytes), 1, message);
  });

  it('puts the name in front of the message when given', () => {
    const err = refusal(() => parseRbaFile(fixtureBytes('f11-data-monthly.csv'), 'f11-data.csv'), 1, 'f11-data.csv: line 1: this is the monthly table F11');
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('RbaFormatError');
  });

  it('keeps the line of an error deep in the file', () => {
    const text = fixtureText('f11.1-data-excel-resaved.csv').replace('21-Dec-2023', '21-Dec-2O23');
    const err = refusal(() => parseRbaFile(bytesOf(text), 'upload.csv'), 15, "upload.csv: line 15: '21-Dec-2O23' is not a valid date");
    expect(err).toBeInstanceOf(RbaFormatError);
  });
});
