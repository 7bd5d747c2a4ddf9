// A throw-away self-signed certificate made by the `openssl` binary, valid for one day.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  /** PEM; also the CA a client must trust, the certificate being self-signed */
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
  /** removes the temporary directory holding the two files */
  cleanup(): void;
}

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
export const OPENSSL_AVAILABLE = hasOpenssl();

/** Self-signed certificate for `names` (host names and IP addresses, as subjectAltName entries); CN is the first. */
export function createCertificate(names: readonly string[] = ['localhost', '127.0.0.1']): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'aud-rates-cert-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  const altNames = names.map((name) => (isIP(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        `/CN=${names[0] ?? 'localhost'}`,
        '-addext',
        `subjectAltName=${altNames}`,
        '-days',
        '1',
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: 'pipe' },
    );
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    cert: readFileSync(certFile, 'utf8'),
    key: readFileSync(keyFile, 'utf8'),
    certFile,
    keyFile,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
