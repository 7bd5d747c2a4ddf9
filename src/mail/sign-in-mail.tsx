// The sign-in e-mail: a plain-text part and an HTML part, each with the one link.
import { renderToString } from 'preact-render-to-string';
import type { MailMessage } from './mailer.js';

export function signInMail(to: string, link: string, validMinutes: number): MailMessage {
  const text = [
    'Sign in to your AUD rates dashboard by opening this link:',
    '',
    link,
    '',
    `It works once and expires in ${validMinutes} minutes. If you did not ask for it, ignore this e-mail: nothing happens until the link is used.`,
  ].join('\n');
  const html = renderToString(
    <html lang="en">
      <body>
        <p>Sign in to your AUD rates dashboard by opening this link:</p>
        <p>
          <a href={link}>{link}</a>
        </p>
        <p>It works once and expires in {validMinutes} minutes. If you did not ask for it, ignore this e-mail: nothing happens until the link is used.</p>
      </body>
    </html>,
  );
  return { to, subject: 'Your sign-in link', text, html: `<!doctype html>${html}`, essentials: { link } };
}
