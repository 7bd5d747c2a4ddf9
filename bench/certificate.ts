// A throw-away self-signed certificate for the bench's HTTPS webhook receiver, made by the `openssl`
// binary (RSA 2048, valid one day), like the tests' own helper (not imported: bench stays apart).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BenchCertificate {
  /** PEM; also the CA a client must trust, the certificate being self-signed */
  cert: string;
  key: string;
}

/** Self-signed certificate for `names` (host names and IP addresses, as subjectAltName entries). */
export function createCertificate(names: readonly string[] = ['127.0.0.1', 'localhost']): BenchCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'aud-rates-bench-cert-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  const altNames = names.map((name) => (isIP(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${names[0] ?? 'localhost'}`, '-addext', `subjectAltName=${altNames}`, '-days', '1', '-keyout', keyFile, '-out', certFile],
      { stdio: 'pipe' },
    );
    return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  } catch (error) {
    throw new Error(`could not make a certificate with openssl (is it installed?): ${(error as Error).message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
