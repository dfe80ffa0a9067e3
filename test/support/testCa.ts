/**
 * A throwaway certificate authority and a server certificate it signed for 127.0.0.1 and
 * localhost, made with the openssl CLI (scripts/setup-test-host.sh installs it), for wss:// tests.
 * Valid for two days; nothing is kept.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LINUX_CA_FILES } from '../../src/core/link/systemCa';

export interface TestCa {
  /** The CA's certificate (PEM): what a "system store" must hold for the server to be trusted. */
  readonly caPem: string;
  readonly caFile: string;
  /** The server's certificate (PEM, signed by the CA) and key, for an https/wss server. */
  readonly cert: string;
  readonly key: string;
}

/** Makes the CA and the server certificate in `dir` (which must exist). */
export function makeTestCa(dir: string): TestCa {
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Agent Bridge Test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  fs.writeFileSync(file('server.ext'), [
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature',
    'extendedKeyUsage=serverAuth',
    '',
  ].join('\n'));
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '0x4711',
    '-out', 'server.pem', '-days', '2', '-extfile', 'server.ext');
  return {
    caPem: fs.readFileSync(file('ca.pem'), 'utf8'),
    caFile: file('ca.pem'),
    cert: fs.readFileSync(file('server.pem'), 'utf8'),
    key: fs.readFileSync(file('server.key'), 'utf8'),
  };
}

/** The machine's real CA bundle (the distribution's, empty if none), as the system store holds it. */
function systemBundleText(): string {
  const file = LINUX_CA_FILES.find((f) => fs.existsSync(f));
  return file ? fs.readFileSync(file, 'utf8') : '';
}

/** Writes a bundle that is the machine's real one plus `extra` (as an administrator adds a CA); returns its path. */
export function writeBundle(file: string, extra = ''): string {
  fs.writeFileSync(file, `${systemBundleText()}\n${extra}`);
  return file;
}
