/**
 * A self-signed TLS certificate for 127.0.0.1 and localhost, made with the openssl command-line tool (Debian's) in a
 * temporary folder, for tests that speak STARTTLS or implicit TLS to a server of the product. Nothing is fetched.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** testCertificate returns PEM key and certificate (RSA 2048, one day) and the folder holding key.pem and cert.pem. */
export function testCertificate(): { key: string; cert: string; dir: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mw-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'), dir };
}
