// Reading a query string and a currency code, alone: a query with nothing to decode takes a shorter
// way than one with `%` or `+`, and both must give the same parameters.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decodeQuery, Param, parseCode } from '../../src/rest/params.js';

const pairs = (search: string) => [...decodeQuery(search)];

describe('decodeQuery', () => {
  it.each([
    ['', []],
    ['?', []],
    [
      '?a=1&b=2',
      [
        ['a', '1'],
        ['b', '2'],
      ],
    ],
    [
      '?&&a=1&&b=2=3&',
      [
        ['a', '1'],
        ['b', '2=3'],
      ],
    ],
    [
      '?a&b=&=c&=',
      [
        ['a', ''],
        ['b', ''],
        ['', 'c'],
        ['', ''],
      ],
    ],
    [
      '?a=1&a=2',
      [
        ['a', '1'],
        ['a', '2'],
      ],
    ],
    // only the first `?` starts the query: the second is part of the name
    ['??a=1', [['?a', '1']]],
  ])('reads %j with nothing to decode as it is', (search, expected) => {
    expect(pairs(search)).toEqual(expected);
  });

  it('gives the same parameters whether a value is written plainly or percent-encoded', () => {
    expect(pairs('?from=usd&to=EUR&amount=1.5')).toEqual(pairs('?fr%6Fm=us%64&to=%45UR&amount=1%2E5'));
    expect(pairs('??a=1&&b=')).toEqual(pairs('?%3Fa=%31&&b='));
  });

  it('decodes `+` as a space and refuses what is not UTF-8', () => {
    expect(pairs('?a=1+2&b=%20x')).toEqual([
      ['a', '1 2'],
      ['b', ' x'],
    ]);
    expect(() => decodeQuery('?a=%FF')).toThrow("Parameter 'a' ('%FF') is not valid UTF-8");
  });
});

describe('currency codes', () => {
  it('reads a code in any case, blanks trimmed, and names what is wrong with one that is not', () => {
    expect(Param.code.parse(' usd ')).toBe('USD');
    expect(parseCode('eUr', 'from')).toBe('EUR');
    expect(Param.code.safeParse('US').error?.issues[0]?.message).toBe("Invalid currency code 'US' in the path: a 3-letter code is required");
    expect(Param.code.safeParse('xyz').error?.issues[0]?.message).toBe("Unsupported currency 'XYZ' in the path; see /symbols for the supported codes");
    expect(() => parseCode('12A', 'symbols')).toThrow("Invalid currency code '12A' in symbols: a 3-letter code is required");
    expect(() => parseCode('abc', 'to')).toThrow("Unsupported currency 'ABC' in to; see /symbols for the supported codes");
  });

  it('reads a list of codes once each, and names the first part that is not a code', () => {
    const read = (list: string) => {
      const result = z.object({ symbols: Param.codes }).safeParse({ symbols: list });
      return result.success ? result.data.symbols : result.error.issues[0]!.message;
    };
    expect(read('usd, ,eur,USD ,')).toEqual(['USD', 'EUR']);
    expect(read(' , ')).toBe("Parameter 'symbols' must list at least one currency code");
    expect(read('USD,xyz,12A')).toBe("Unsupported currency 'XYZ' in symbols; see /symbols for the supported codes");
    expect(read('USD,12A,XYZ')).toBe("Invalid currency code '12A' in symbols: a 3-letter code is required");
    expect(read('usd, 12a ,eur')).toBe("Invalid currency code '12a' in symbols: a 3-letter code is required");
  });
});
