// The e-mail of a rate alert: a plain-text part and an HTML part naming the currency, the
// condition, the new and the previous rate with their dates, and the link that pauses the alert.
import { renderToString } from 'preact-render-to-string';
import { changePercent } from '../domain/alerts.js';
import { normalizeDecimal } from '../domain/decimal.js';
import type { MailMessage } from './mailer.js';

export interface AlertMailFiring {
  currency: string;
  condition: 'above' | 'below' | 'change_pct';
  level: string;
  date: string;
  value: string;
  previousDate: string;
  previousValue: string;
}

/** The condition in words, as the dashboard says it too. */
export function conditionInWords(condition: AlertMailFiring['condition'], currency: string, level: string): string {
  const value = normalizeDecimal(level);
  if (condition === 'above') return `${currency} rises to ${value} or above`;
  if (condition === 'below') return `${currency} falls to ${value} or below`;
  return `${currency} moves by ${value}% or more in a day`;
}

/** One firing's message; a test says so in its subject and first line. */
export function alertMail(to: string, firing: AlertMailFiring, pauseUrl: string, test = false): MailMessage {
  const value = normalizeDecimal(firing.value);
  const previous = normalizeDecimal(firing.previousValue);
  const change = changePercent(firing.value, firing.previousValue);
  const signed = change.startsWith('-') ? change : `+${change}`;
  const condition = conditionInWords(firing.condition, firing.currency, firing.level);
  const subject = `${test ? '[Test] ' : ''}Rate alert: ${firing.currency} at ${value} on ${firing.date} (${signed}%)`;
  const intro = test
    ? 'This is a test of your rate alert, with the latest published rates: it does not count as a firing.'
    : 'Your rate alert fired with the latest rates the Reserve Bank of Australia published.';
  const lines = [
    `Alert: ${condition}`,
    `New rate: A$1 = ${value} ${firing.currency} on ${firing.date}`,
    `Previous rate: A$1 = ${previous} ${firing.currency} on ${firing.previousDate}`,
    `Change: ${signed}%`,
  ];
  const pause = 'To pause this alert, open this link and confirm:';
  const text = [intro, '', ...lines, '', pause, pauseUrl, ''].join('\n');
  const html = renderToString(
    <html lang="en">
      <body>
        <p>{intro}</p>
        <ul>
          {lines.map((line) => (
            <li>{line}</li>
          ))}
        </ul>
        <p>
          {pause} <a href={pauseUrl}>pause this alert</a>
        </p>
        <p>{pauseUrl}</p>
      </body>
    </html>,
  );
  return { to, subject, text, html: `<!doctype html>${html}`, essentials: { subject, pause: pauseUrl } };
}
