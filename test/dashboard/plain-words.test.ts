// The Webhooks form says why a subscription was refused in plain words: each refusal the API words
// for a JSON client (taken from the real checks, so a changed wording shows here) reads as a sentence
// about the form's fields, with no field names of the API.
import { expect, it } from 'vitest';
import { inPlainWords } from '../../src/dashboard/webhooks-page.js';
import { parseWebhookUrl } from '../../src/webhooks/target.js';

function refusalOf(url: string): string {
  try {
    parseWebhookUrl(url, false);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${url} was accepted`);
}

it('rewords every refusal of a webhook URL', () => {
  const cases: [string, string][] = [
    ['https://127.0.0.1/hook', '127.0.0.1 is a private or reserved address: deliveries go only to servers reachable from the internet.'],
    ['https://[::1]/hook', '[::1] is a private or reserved address: deliveries go only to servers reachable from the internet.'],
    ['https://printer.local/hook', 'printer.local is a name inside a local network: deliveries go only to servers reachable from the internet.'],
    ['http://example.com/hook', 'The URL must start with https://: deliveries are sent encrypted.'],
    ['example.com/hook', 'Enter a whole address starting with https://, such as https://example.com/hooks/rates.'],
    ['https://user:secret@example.com/', 'The URL cannot contain a user name or password.'],
    ['https://exa mple.com/', 'The URL cannot contain spaces or invisible characters.'],
    [`https://example.com/${'x'.repeat(3000)}`, 'The URL is too long: it may have at most 2048 characters.'],
  ];
  for (const [url, words] of cases) expect(inPlainWords(refusalOf(url)), url.slice(0, 40)).toBe(words);
});

it('rewords what DNS answers, and leaves a refusal it does not know as it came', () => {
  expect(inPlainWords('url host hooks.example.com does not resolve')).toBe('No server named hooks.example.com was found: check the address.');
  expect(inPlainWords('url host hooks.example.com resolves to an address that is not public')).toBe(
    'hooks.example.com leads to a private or reserved address: deliveries go only to servers reachable from the internet.',
  );
  expect(inPlainWords('url host slow.example did not resolve within 5000 ms')).toBe('Looking up the server slow.example took too long: try again in a moment.');
  expect(inPlainWords('HTTP 500')).toBe('HTTP 500');
});
