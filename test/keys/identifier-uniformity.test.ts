// D18 (docs/decisions.md): identifiers are 56 characters drawn uniformly from [A-Za-z0-9]. A light
// statistical check over a few thousand of them: every character of the alphabet appears, none far
// more or far less often than expected, and no position is stuck.
import { describe, expect, it } from 'vitest';
import { IDENTIFIER_LENGTH, generateIdentifier } from '../../src/domain/api-key.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SAMPLES = 4000;

describe('key identifiers', () => {
  const identifiers = Array.from({ length: SAMPLES }, generateIdentifier);

  it('are 56 characters of [A-Za-z0-9], all different', () => {
    expect(IDENTIFIER_LENGTH).toBe(56);
    for (const id of identifiers) expect(id).toMatch(/^[A-Za-z0-9]{56}$/);
    expect(new Set(identifiers).size).toBe(SAMPLES);
  });

  it('use every character of the alphabet about equally often', () => {
    const counts = new Map<string, number>([...ALPHABET].map((c) => [c, 0]));
    for (const id of identifiers) for (const c of id) counts.set(c, counts.get(c)! + 1);
    expect(counts.size).toBe(62);
    const expected = (SAMPLES * 56) / 62; // ≈ 3613 per character
    for (const [c, n] of counts) {
      expect(n, `'${c}' appears ${n} times, expected about ${Math.round(expected)}`).toBeGreaterThan(expected / 2);
      expect(n, `'${c}' appears ${n} times, expected about ${Math.round(expected)}`).toBeLessThan(expected * 2);
    }
    // Chi-square with 61 degrees of freedom: mean 61, far above 150 only for a skewed source.
    let chi = 0;
    for (const n of counts.values()) chi += (n - expected) ** 2 / expected;
    expect(chi).toBeLessThan(150);
  });

  it('vary at every position', () => {
    for (let position = 0; position < 56; position++) {
      const seen = new Set(identifiers.map((id) => id[position]));
      // 4000 uniform draws from 62 symbols leave none out in practice; allow a little slack.
      expect(seen.size, `position ${position}`).toBeGreaterThanOrEqual(55);
    }
  });
});
