// The pause link of an alert's e-mail: the alert's id and an HMAC of it under a key derived from
// the service's webhook key, so a link cannot be made for another alert and needs no sign-in. It
// opens a page whose button pauses the alert: following the link alone (a mail scanner) changes nothing.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export const ALERT_PAUSE_PATH = '/dashboard/alerts/pause';
const ALERT_ID = /^[0-9a-f]{32}$/;

export interface AlertLinks {
  /** the link that pauses an alert */
  pauseUrl(alertId: string): string;
  /** the alert a pause token names, or null when it is not one this service signed */
  alertOfPauseToken(token: string): string | null;
}

export function createAlertLinks(key: Buffer, publicUrl: string): AlertLinks {
  // A key of its own, so a signature here can never be anything else's.
  const signing = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'alert pause links', 32));
  const mac = (alertId: string) => createHmac('sha256', signing).update(`pause:${alertId}`).digest();
  return {
    pauseUrl(alertId) {
      const url = new URL(ALERT_PAUSE_PATH, publicUrl);
      url.searchParams.set('token', `${alertId}.${mac(alertId).toString('base64url')}`);
      return url.href;
    },
    alertOfPauseToken(token) {
      const [alertId = '', signature = '', ...rest] = token.split('.');
      if (rest.length > 0 || !ALERT_ID.test(alertId)) return null;
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(alertId);
      return given.length === expected.length && given.toString('base64url') === signature && timingSafeEqual(given, expected) ? alertId : null;
    },
  };
}
