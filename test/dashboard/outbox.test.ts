// Without SMTP_URL the sign-in mail goes to DATA_DIR/outbox/ (readable by the service only) and its link to the log.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { createMailer } from '../../src/mail/mailer.js';
import { signInMail } from '../../src/mail/sign-in-mail.js';

it('writes an .eml file (0600) and logs the link at info', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'outbox-')), 'outbox');
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) }));
  const mailer = createMailer({ smtpUrl: undefined, from: 'AUD rates <no-reply@localhost>', outboxDir: dir, logger });
  const link = 'http://127.0.0.1:8080/dashboard/sign-in?token=' + 'A'.repeat(43);
  await mailer.send(signInMail('me@example.com', link, 15));
  const [file] = readdirSync(dir);
  expect(file).toMatch(/\.eml$/);
  expect(statSync(join(dir, file!)).mode & 0o777).toBe(0o600);
  const eml = readFileSync(join(dir, file!), 'utf8');
  expect(eml).toContain('To: me@example.com');
  expect(eml).toContain('text/plain');
  expect(eml).toContain('text/html');
  const entry = JSON.parse(lines[0]!);
  expect(entry.level).toBe(30);
  expect(entry.link).toBe(link);
});

it('narrows an outbox an earlier version left open (0755, messages 0644) to the service alone', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'outbox-')), 'outbox');
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'old.eml'), 'To: old@example.com\n', { mode: 0o644 });
  chmodSync(join(dir, 'old.eml'), 0o644);
  const mailer = createMailer({ smtpUrl: undefined, from: 'AUD rates <no-reply@localhost>', outboxDir: dir, logger: pino({ level: 'silent' }) });
  await mailer.send(signInMail('me@example.com', 'http://127.0.0.1:8080/dashboard/sign-in?token=' + 'B'.repeat(43), 15));
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  for (const file of readdirSync(dir)) expect(statSync(join(dir, file)).mode & 0o777, file).toBe(0o600);
});

it('writes the parts as they are (8bit), so the link is one unbroken line; a part with a line too long for that stays encoded', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'outbox-')), 'outbox');
  const mailer = createMailer({ smtpUrl: undefined, from: 'AUD rates <no-reply@localhost>', outboxDir: dir, logger: pino({ level: 'silent' }) });
  const link = 'http://127.0.0.1:8080/dashboard/sign-in?token=' + 'C'.repeat(43);
  await mailer.send(signInMail('me@example.com', link, 15));
  const eml = readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8');
  expect(eml.split('\n')).toContain(link);
  expect(eml).toContain(`<a href="${link}">${link}</a>`);
  expect(eml.match(/Content-Transfer-Encoding: 8bit/g)).toHaveLength(2);

  const long = 'x'.repeat(1200);
  await mailer.send({ to: 'me@example.com', subject: 'long', text: `${link}\n${long}`, html: `<p>${long}</p>`, essentials: {} });
  const second = readdirSync(dir)
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .find((text) => text.includes('Subject: long'))!;
  expect(second).toContain('Content-Transfer-Encoding: quoted-printable');
  for (const line of second.split('\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(998);
});
