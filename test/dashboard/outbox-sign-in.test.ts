// Without SMTP_URL the sign-in mail is written to DATA_DIR/outbox/ for a person to open in an
// editor: the link in the file is whole (no quoted-printable =3D or soft line break), so copied
// verbatim from the file it signs in.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { Browser, PUBLIC_URL } from '../support/dashboard.js';

let t: TestApp;
const dataDir = mkdtempSync(join(tmpdir(), 'outbox-sign-in-'));

beforeAll(async () => {
  t = await startTestApp({ config: { PUBLIC_URL, DATA_DIR: dataDir } });
});
afterAll(async () => {
  await t?.close();
});

it('writes a link that, copied verbatim from the outbox file, signs in', async () => {
  const browser = new Browser(t);
  expect((await browser.post('/dashboard/sign-in-link', { email: 'outbox@example.com' })).status).toBe(200);
  const outbox = join(dataDir, 'outbox');
  await expect.poll(() => readdirSync(outbox).length).toBe(1);
  const eml = readFileSync(join(outbox, readdirSync(outbox)[0]!), 'utf8');
  expect(eml).not.toContain('quoted-printable');
  expect(eml).not.toContain('=3D');
  // the line a person copies: the whole link, nothing before or after it
  const lines = eml.split('\n').filter((line) => line.startsWith(`${PUBLIC_URL}/dashboard/sign-in?token=`));
  expect(lines).toHaveLength(1);
  const link = lines[0]!;
  expect(link).toMatch(/^http:\/\/rates\.test\/dashboard\/sign-in\?token=[A-Za-z0-9_-]{43}$/);
  // the HTML part carries the same link, intact
  expect(eml).toContain(`href="${link}"`);

  const opened = await browser.get(link.slice(PUBLIC_URL.length));
  expect(opened.status).toBe(200);
  const token = new URL(link).searchParams.get('token')!;
  expect(await opened.text()).toContain(`value="${token}"`);
  const signedIn = await browser.post('/dashboard/sign-in', { token });
  expect(signedIn.status).toBe(303);
  expect(await (await browser.get('/dashboard')).text()).toContain('outbox@example.com');
});
