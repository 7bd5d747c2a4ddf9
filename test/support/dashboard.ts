// The dashboard as a browser meets it: a cookie jar over the app's public handler, and a real SMTP
// server in-process receiving the sign-in mail.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { parseSetCookie } from 'cookie';
import { SMTPServer } from 'smtp-server';
import { startTestApp, type TestApp, type TestAppOptions } from './app.js';

export const PUBLIC_URL = 'http://rates.test';

export interface ReceivedMail {
  to: string[];
  /** the raw message, quoted-printable soft line breaks undone */
  raw: string;
  /** the sign-in link it carries */
  link: string;
}

export interface Mailbox {
  url: string;
  /** resolves with the next message to arrive (or one already waiting) */
  next(): Promise<ReceivedMail>;
  /** marks every message received so far read (a test sharing the mailbox with earlier ones): next() waits for a new one */
  skipReceived(): void;
  received: ReceivedMail[];
  close(): Promise<void>;
}

export async function startMailbox(): Promise<Mailbox> {
  const received: ReceivedMail[] = [];
  let read = 0;
  const waiting: ((mail: ReceivedMail) => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks)
          .toString('utf8')
          .replace(/=\r?\n/g, '')
          .replace(/=3D/g, '=');
        const link = /https?:\/\/[^\s"<>]+token=[A-Za-z0-9_-]+/.exec(raw)?.[0] ?? '';
        const mail = { to: session.envelope.rcptTo.map((r) => r.address), raw, link };
        received.push(mail);
        waiting.shift()?.(mail);
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    next() {
      const ready = received[read];
      read++;
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    skipReceived() {
      read = received.length;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A page's text with its tags taken out, the entities the pages use undone and its spaces made single, for reading numbers off. */
export function pageText(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ');
}

export interface DashboardApp extends TestApp {
  mailbox: Mailbox;
}

export async function startDashboardApp(options: TestAppOptions = {}): Promise<DashboardApp> {
  const mailbox = await startMailbox();
  const app = await startTestApp({ ...options, config: { PUBLIC_URL, SMTP_URL: mailbox.url, ...options.config } });
  return {
    ...app,
    mailbox,
    async close() {
      await app.close();
      await mailbox.close();
    },
  };
}

export interface BrowserOptions {
  /** the request arrived over TLS */
  https?: boolean;
  /** the client's address: 127.0.0.1 unless given */
  address?: string;
}

/** A browser: keeps the cookies the dashboard sets and sends them back, and marks its form posts same-origin. */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly app: TestApp,
    private readonly options: BrowserOptions = {},
  ) {}

  async request(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const headers = { ...(cookie ? { Cookie: cookie } : {}), ...init.headers };
    const response = await this.app.app.web.fetch(
      `${PUBLIC_URL}${path}`,
      { method: init.method ?? 'GET', headers, ...(init.body !== undefined ? { body: init.body } : {}) },
      { req: { socket: { remoteAddress: this.options.address ?? '127.0.0.1', encrypted: this.options.https ?? false } } },
    );
    for (const line of response.headers.getSetCookie()) {
      const set = parseSetCookie(line);
      if (set.maxAge === 0) this.cookies.delete(set.name);
      else this.cookies.set(set.name, set.value ?? '');
    }
    return response;
  }

  get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.request(path, { headers });
  }

  /** A form post; a header given as '' is left out. */
  post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    const sent = { 'Content-Type': 'application/x-www-form-urlencoded', Origin: PUBLIC_URL, 'Sec-Fetch-Site': 'same-origin', ...headers };
    return this.request(path, {
      method: 'POST',
      headers: Object.fromEntries(Object.entries(sent).filter(([, value]) => value !== '')),
      body: new URLSearchParams(form).toString(),
    });
  }

  /** The CSRF token of the page's forms. */
  static csrfOf(html: string): string {
    return /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  }

  /** Asks for a link, reads it from the mail, opens it and presses Sign in; the final response. */
  async signIn(app: DashboardApp, email: string): Promise<Response> {
    const asked = await this.post('/dashboard/sign-in-link', { email });
    if (asked.status !== 200) throw new Error(`asking for a link answered ${asked.status}`);
    const { link } = await app.mailbox.next();
    const token = new URL(link).searchParams.get('token')!;
    return this.post('/dashboard/sign-in', { token });
  }
}

/** A browser signed in as `email` through the dashboard's own flow. */
export async function signedInBrowser(app: DashboardApp, email: string): Promise<Browser> {
  const browser = new Browser(app);
  await browser.signIn(app, email);
  return browser;
}
