// The one rule for text the service accepts (src/domain/text.ts): strict UTF-8, no NUL, no lone surrogate.
import { describe, expect, it } from 'vitest';
import { decodeUtf8, textFault } from '../../src/domain/text.js';

describe('textFault', () => {
  it.each(['', 'plain ASCII', 'Zürich 東京 🚀', '\uFFFD', '\ud83d\ude80', 'tab\tand\nnewline', '\u0001'])('accepts %j', (text) => {
    expect(textFault(text)).toBeNull();
  });

  it.each<[string, string]>([
    ['\0', 'contains NUL (U+0000)'],
    ['a\0b', 'contains NUL (U+0000)'],
    ['\ud800', 'contains a lone surrogate (U+D800), which is not Unicode text'],
    ['a\udc00', 'contains a lone surrogate (U+DC00), which is not Unicode text'],
    ['\ude80\ud83d', 'contains a lone surrogate (U+DE80), which is not Unicode text'],
    ['🚀\ud83d', 'contains a lone surrogate (U+D83D), which is not Unicode text'],
  ])('refuses %j', (text, fault) => {
    expect(textFault(text)).toBe(fault);
  });
});

describe('decodeUtf8', () => {
  it('decodes UTF-8 exactly, a byte-order mark included', () => {
    expect(decodeUtf8(Buffer.from('\uFEFFZürich 東京 🚀'))).toBe('\uFEFFZürich 東京 🚀');
  });

  it.each<[string, number[]]>([
    ['a stray continuation byte', [0x80]],
    ['C3 28', [0xc3, 0x28]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['an overlong NUL', [0xc0, 0x80]],
    ['a truncated sequence', [0xe6, 0x9d]],
    ['FF', [0xff]],
  ])('refuses %s', (_what, bytes) => {
    expect(decodeUtf8(Uint8Array.from(bytes))).toBeNull();
  });
});
