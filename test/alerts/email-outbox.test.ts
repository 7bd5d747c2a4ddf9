// An alert's e-mail is written with its firing, in the publication's transaction, and sent by a job
// from that outbox: a process that dies after claiming it loses nothing (another sends it when the
// lease ends), a mail server that refuses it gets it again on the webhooks' schedule, and an
// account suspended before the send gets nothing.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueAlertEmails } from '../../src/db/alerts.js';
import { graphql } from '../../src/graphql.js';
import type { RbaDay } from '../../src/rba/index.js';
import { createAlert } from '../support/alerts.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { evening, plus } from '../support/webhook-receiver.js';

const day = (date: string, usd: string): RbaDay => ({ date, rates: { USD: usd } });

/** An SMTP server that refuses each message while `refusing` is set, and keeps the ones it takes. */
async function startFlakyMailServer() {
  const taken: { to: string[]; raw: string }[] = [];
  const state = { refusing: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (state.refusing) return callback(Object.assign(new Error('mailbox busy, try later'), { responseCode: 451 }));
        taken.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    taken,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let mail: Awaited<ReturnType<typeof startFlakyMailServer>>;
let t: TestApp;
let key: string;
let date = '2026-05-11';
let usd = 0.6;

beforeAll(async () => {
  mail = await startFlakyMailServer();
  t = await startTestApp({ now: evening(date), config: { SMTP_URL: mail.url, PUBLIC_URL: 'http://rates.test' } });
  await t.importTable({ format: 'csv', publicationDate: null, days: [day(date, '0.6000')] });
  key = await t.createKey('professional', 'outbox@example.test');
});
afterAll(async () => {
  await t?.close();
  await mail?.close();
});

const emails = () => t.db.selectFrom('alert_emails').select(['firing_id', 'state', 'attempts', 'next_attempt_at', 'last_error']).orderBy('firing_id').execute();

/** An alert on USD rising past the next value, and the next day crossing it; the evening of that day. */
async function fireOne(): Promise<string> {
  const level = (usd + 0.005).toFixed(4);
  const id = await createAlert(t, key, { currency: 'USD', condition: 'above', value: level, channels: ['email'] });
  const next = new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  date = next;
  usd += 0.01;
  t.setNow(evening(date));
  expect(await t.importTable({ format: 'csv', publicationDate: date, days: [day(date, usd.toFixed(4))] })).toMatchObject({ published: date });
  return id;
}

describe('the alert e-mail outbox', () => {
  it('a process that claimed an e-mail and died: another sends it once its lease has run out', async () => {
    await fireOne();
    const [pending] = await emails();
    expect(pending).toMatchObject({ state: 'pending', attempts: 0 });
    // the claim of a process that then dies, with the job's own lease of two minutes
    const now = new Date(evening(date));
    expect(await claimDueAlertEmails(t.db, now, new Date(now.getTime() + 120_000), 10)).toHaveLength(1);
    expect(await t.app.alertMail.runDue()).toBe(0);
    t.setNow(plus(evening(date), 121_000));
    expect(await t.app.alertMail.runDue()).toBe(1);
    expect(mail.taken).toHaveLength(1);
    expect(mail.taken[0]!.to).toEqual(['outbox@example.test']);
    expect((await emails())[0]).toMatchObject({ state: 'sent', attempts: 1 });
    expect(await t.app.alertMail.runDue()).toBe(0);
  });

  it('a refusing mail server gets it again a minute later, then after five', async () => {
    mail.state.refusing = true;
    await fireOne();
    expect(await t.app.alertMail.runDue()).toBe(1);
    let row = (await emails()).at(-1)!;
    expect(row).toMatchObject({ state: 'pending', attempts: 1 });
    expect(row.last_error).toContain('mailbox busy');
    expect(row.next_attempt_at.toISOString()).toBe(plus(evening(date), 60_000));
    t.setNow(plus(evening(date), 59_000));
    expect(await t.app.alertMail.runDue()).toBe(0);
    t.setNow(plus(evening(date), 60_000));
    expect(await t.app.alertMail.runDue()).toBe(1);
    row = (await emails()).at(-1)!;
    expect(row).toMatchObject({ state: 'pending', attempts: 2 });
    expect(row.next_attempt_at.toISOString()).toBe(plus(evening(date), 60_000 + 240_000));
    mail.state.refusing = false;
    t.setNow(plus(evening(date), 300_000));
    const before = mail.taken.length;
    expect(await t.app.alertMail.runDue()).toBe(1);
    expect(mail.taken.length).toBe(before + 1);
    expect((await emails()).at(-1)).toMatchObject({ state: 'sent', attempts: 3, last_error: null });
  });

  it('an account suspended between the firing and the send gets no e-mail', async () => {
    // a move of 20% in a day: not the next one, but the one after the suspension
    await createAlert(t, key, { currency: 'USD', condition: 'change_pct', value: '20', channels: ['email'] });
    await fireOne();
    const suspend = graphql('mutation($e: EmailAddress!, $s: AccountStatus!) { setAccountStatus(email: $e, status: $s) { status } }');
    expect((await t.operator(suspend, { e: 'outbox@example.test', s: 'suspended' })).errors).toBeUndefined();
    const before = mail.taken.length;
    expect(await t.app.alertMail.runDue()).toBe(1);
    expect(mail.taken.length).toBe(before);
    expect((await emails()).at(-1)).toMatchObject({ state: 'abandoned' });
    // and while suspended, a publication fires nothing
    const fired = (await t.db.selectFrom('alert_firings').select('id').execute()).length;
    date = '2026-05-20';
    t.setNow(evening(date));
    await t.importTable({ format: 'csv', publicationDate: date, days: [day(date, '0.9000')] });
    expect((await t.db.selectFrom('alert_firings').select('id').execute()).length).toBe(fired);
  });
});
