// The restriction fields of the Keys page's forms, read as the schema's KeyRestrictionsInput. The
// form always sends the whole set, so an empty field removes that restriction. What the schema
// refuses is said in the form's words (its labels, not the API's field names).
import { BadRequestError } from '../errors.js';
import { isValidIsoDate } from '../domain/calendar.js';
import type { RestrictionsChange } from '../schema/key-restrictions.js';
import type { RestrictionsForm } from './keys-page.js';

/** What the form sent, kept to show again (cut to what its fields hold). */
export function sentRestrictions(form: URLSearchParams): RestrictionsForm {
  return {
    allowedIps: (form.get('allowedIps') ?? '').slice(0, 2000),
    allowedEndpoints: form.getAll('allowedEndpoints').slice(0, 20),
    expiresOn: (form.get('expiresOn') ?? '').slice(0, 10),
    monthlyCap: (form.get('monthlyCap') ?? '').slice(0, 12),
  };
}

/** The fields as a change that sets every restriction (null where a field is empty). */
export function restrictionsChange(sent: RestrictionsForm): RestrictionsChange {
  const ips = sent.allowedIps.split(/[\s,]+/).filter((entry) => entry !== '');
  const cap = sent.monthlyCap.trim();
  if (cap !== '' && !/^\d{1,9}$/.test(cap)) throw new BadRequestError('Monthly cap: enter a whole number of requests, 0 or more, or leave it empty.');
  const date = sent.expiresOn.trim();
  if (date !== '' && !isValidIsoDate(date)) throw new BadRequestError('Expires on: enter a date (YYYY-MM-DD), or leave it empty.');
  return {
    allowedIps: ips.length > 0 ? ips : null,
    allowedEndpoints: sent.allowedEndpoints.length > 0 ? [...sent.allowedEndpoints] : null,
    expiresOn: date === '' ? null : date,
    monthlyCap: cap === '' ? null : Number(cap),
  };
}

const LABELS: readonly [field: string, label: string][] = [
  ['allowedIps', 'Allowed IP ranges'],
  ['allowedEndpoints', 'Allowed endpoints'],
  ['expiresOn', 'Expires on'],
  ['monthlyCap', 'Monthly cap'],
];

/** A refusal of the restrictions in the form's words: the field's label for its API name. */
export function inFormWords(message: string): string {
  const found = LABELS.find(([field]) => message.startsWith(`${field}:`));
  return found ? `${found[1]}${message.slice(found[0].length)}` : message;
}
