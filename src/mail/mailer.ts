// Outgoing e-mail. With SMTP_URL, nodemailer sends over SMTP (upgrading with STARTTLS whenever the
// server offers it); without, each message is written as an .eml file under DATA_DIR/outbox/ and
// its essentials logged, so a local user can follow a sign-in link with no mail server.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { narrowToOwner } from '../private-files.js';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** what the log shows of the message when it goes to the outbox (a link, never a secret beyond it) */
  essentials: Record<string, string>;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export interface MailerOptions {
  smtpUrl: string | undefined;
  from: string;
  /** where messages go without SMTP */
  outboxDir: string;
  logger: Logger;
}

/** nodemailer's transport, made on the first message: most starts send none, so it does not load with the service. */
function lazily<T extends Transporter>(make: (nodemailer: typeof import('nodemailer').default) => T): () => Promise<T> {
  let transport: Promise<T> | undefined;
  return () => (transport ??= import('nodemailer').then((module) => make(module.default)));
}

export function createMailer({ smtpUrl, from, outboxDir, logger }: MailerOptions): Mailer {
  if (smtpUrl) {
    const smtp = lazily((nodemailer) => nodemailer.createTransport(smtpUrl));
    return {
      async send({ to, subject, text, html }) {
        await (await smtp()).sendMail({ from, to, subject, text, html });
      },
    };
  }
  const stream = lazily((nodemailer) => nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));
  // The outbox is read by people, who copy the sign-in link out of the file: its parts are written
  // as they are (8bit), not quoted-printable, which would cut the link and write its = as =3D.
  let narrowed = false;
  return {
    async send({ to, subject, text, html, essentials }) {
      const info = await (await stream()).sendMail({ from, to, subject, text: asWritten('text/plain', text), html: asWritten('text/html', html) });
      mkdirSync(outboxDir, { recursive: true, mode: 0o700 });
      // An outbox an earlier version made (0755, its messages 0644) is narrowed once, like the rest of DATA_DIR.
      if (!narrowed) narrowToOwner(outboxDir);
      narrowed = true;
      const file = join(outboxDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
      // The message holds a sign-in link: readable by the service's user only.
      writeFileSync(file, info.message as Buffer, { mode: 0o600 }); // buffer: true above
      logger.info({ to, file, ...essentials }, `mail written to the outbox (no SMTP_URL): ${subject}`);
    },
  };
}

/** longest line a message may hold (RFC 5322), beyond which a part must be encoded */
const MAX_LINE_OCTETS = 998;

/** A part written as it is, with its own headers (nodemailer's raw part), or as given when a line is too long for that. */
function asWritten(type: string, content: string): string | { raw: string } {
  if (content.split('\n').some((line) => Buffer.byteLength(line) > MAX_LINE_OCTETS)) return content;
  return { raw: `Content-Type: ${type}; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n${content}` };
}
