import { describe, expect, it } from 'vitest';
import { appForFile } from '../support/app.js';

const t = appForFile({}, 'f11.1-data.csv');

describe('smoke', () => {
  it('serves latest with a key', async () => {
    const key = await t.createKey();
    const { status, body } = await t.json('/latest?symbols=USD,TWI', { key });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, timestamp: 1778457600, base: 'AUD', date: '2026-05-11', rates: { USD: 0.7013, TWI: 64.6 } });
  });
});
