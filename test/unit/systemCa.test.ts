/**
 * wss:// with a certificate authority from the system store: a throwaway CA (openssl CLI) signs a
 * real wss dev backend on loopback. With the CA in the store named by SSL_CERT_FILE the headless
 * host connects and answers a TOOL_CALL; without it (or with the system store turned off) it
 * fails with an error that says what was trusted and what to do. The loader itself is checked on
 * real files and folders for OpenSSL's rules (SSL_CERT_FILE, SSL_CERT_DIR, the distribution bundle).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import * as tls from 'node:tls';
import { BridgeConnection } from '../../src/core/link/connection';
import { lineLogger } from '../../src/core/log';
import { silentLogger } from '../support/silentLogger';
import { LINUX_CA_FILES, loadSystemCertificates, MAC_KEYCHAINS, pemCertificates, systemTrust } from '../../src/core/link/systemCa';
import { startDevBackend, type DevBackend } from '../../src/devBackend/server';
import { startHeadlessHost } from '../../src/node/headless';
import { makeTree } from '../support/fixtures';
import { waitUntil } from '../support/waitUntil';
import { makeTestCa, writeBundle, type TestCa } from '../support/testCa';

const dir = makeTree({ 'project/README.md': '# over wss\n' }, 'ab-tls-');
const project = path.join(dir, 'project');
let ca: TestCa;
let backend: DevBackend;
const fast = { backoffBaseMs: 50, backoffCapMs: 100 };
const ENV_KEYS = ['SSL_CERT_FILE', 'SSL_CERT_DIR'] as const;
const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));

/** Sets the store variables for one test (unset ones are removed), restored after the file. */
function useStore(env: Partial<Record<(typeof ENV_KEYS)[number], string>>): void {
  for (const k of ENV_KEYS) {
    if (env[k] === undefined) delete process.env[k];
    else process.env[k] = env[k];
  }
}

before(async () => {
  fs.mkdirSync(path.join(dir, 'ca'));
  ca = makeTestCa(path.join(dir, 'ca'));
  // The "system store" with the test CA in it: the machine's real bundle plus the CA, as an admin would add it.
  writeBundle(path.join(dir, 'with-ca.crt'), ca.caPem);
  writeBundle(path.join(dir, 'without-ca.crt'));
  backend = await startDevBackend({ port: 0, tls: { cert: ca.cert, key: ca.key } });
});

after(async () => {
  await backend?.close();
  for (const k of ENV_KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

test('with the CA in the store of SSL_CERT_FILE, the host connects over wss:// and answers a TOOL_CALL', async () => {
  useStore({ SSL_CERT_FILE: path.join(dir, 'with-ca.crt') });
  assert.match(backend.wsUrl(), /^wss:\/\/127\.0\.0\.1:\d+\//);
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: project, log: silentLogger, timing: fast });
  try {
    const session = await backend.waitForSession(() => true, 10_000);
    const result = await backend.callTool('read_file', { relativePath: 'README.md' }, { session });
    assert.equal(result.type, 'TOOL_RESULT');
    const data = result.data as { success: boolean; result?: string };
    assert.equal(data.success, true);
    assert.match(data.result ?? '', /# over wss/);
    assert.equal(host.connection.state, 'connected');
  } finally {
    host.stop();
  }
});

test('without the CA in the store, the connection fails with a clear, logged reason and keeps retrying', async () => {
  useStore({ SSL_CERT_FILE: path.join(dir, 'without-ca.crt') });
  const lines: string[] = [];
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: project, log: lineLogger((l) => lines.push(l)), timing: fast });
  try {
    await waitUntil(() => lines.some((l) => l.includes('[error]')), 'the TLS error', 10_000);
    const error = host.connection.lastError ?? '';
    assert.match(error, /^The backend's TLS certificate is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE: /);
    assert.ok(error.includes(`from ${path.join(dir, 'without-ca.crt')}`), `says which store was read: ${error}`);
    assert.match(error, /Add the authority that signed it to the system's certificate store \(or to a bundle named by SSL_CERT_FILE\)/);
    assert.ok(lines.some((l) => l.includes('[error]') && l.includes('is not trusted')), 'logged as an error');
    assert.notEqual(host.connection.state, 'connected');
    assert.equal(backend.sessions().length, 0);
    assert.equal(host.connection.authRejected, false, 'not a token problem: the link keeps trying');
  } finally {
    host.stop();
  }
});

test('with the system store turned off (--no-system-ca), the CA in SSL_CERT_FILE is not trusted', async () => {
  useStore({ SSL_CERT_FILE: path.join(dir, 'with-ca.crt') });
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: project, log: silentLogger, timing: fast, systemCertificates: false });
  try {
    await waitUntil(() => /not trusted/.test(host.connection.lastError ?? ''), 'the TLS error', 10_000);
    assert.match(host.connection.lastError ?? '', /Trusted: Node's built-in roots only\./);
  } finally {
    host.stop();
  }
});

test('the store is read for wss:// only, never for a plain ws:// backend', async () => {
  const plain = await startDevBackend({ port: 0 });
  let reads = 0;
  const connection = new BridgeConnection({
    serverUrl: plain.wsUrl(),
    protocol: 'auto',
    sessionId: 's-plain',
    projectKey: 'p',
    projectPath: project,
    log: silentLogger,
    trust: () => {
      reads++;
      return systemTrust();
    },
  });
  try {
    connection.connect();
    await waitUntil(() => connection.state === 'connected', 'connected', 5000);
    assert.equal(reads, 0);
  } finally {
    connection.disconnect();
    await plain.close();
  }
});

test('SSL_CERT_FILE replaces the distribution bundle; each certificate counts once; broken and TRUSTED blocks are skipped', async () => {
  const root = makeTree({}, 'ab-store-');
  const bundle = path.join(root, 'bundle.pem');
  const trusted = ca.caPem.replace(/CERTIFICATE-----/g, 'TRUSTED CERTIFICATE-----');
  const broken = '-----BEGIN CERTIFICATE-----\nnot base64 at all!\n-----END CERTIFICATE-----\n';
  // The same CA twice, once with CRLF line ends: still one certificate.
  fs.writeFileSync(bundle, `# comment\n${ca.caPem}\n${trusted}\n${broken}${ca.caPem.replace(/\n/g, '\r\n')}`);
  const found = await loadSystemCertificates({ platform: 'linux', env: { SSL_CERT_FILE: bundle } });
  assert.deepEqual(found.certificates.map((c) => c.trim()), [ca.caPem.trim()]);
  assert.deepEqual(found.sources, [`1 from ${bundle}`]);
  const missing = await loadSystemCertificates({ platform: 'linux', env: { SSL_CERT_FILE: path.join(root, 'nope.pem') } });
  assert.deepEqual(missing.certificates, []);
  assert.match(missing.sources[0], /nope\.pem \(unreadable\)/);
});

test('SSL_CERT_DIR folders are read (hash names, .pem, .crt), and the distribution bundle is used when nothing is set', async () => {
  const one = makeTree({ 'a1b2c3d4.0': ca.caPem, 'notes.txt': ca.caPem.replace('BEGIN', 'XX') }, 'ab-store-');
  const two = makeTree({ 'node-root.crt': tls.rootCertificates[0], 'skip.txt': tls.rootCertificates[1] }, 'ab-store-');
  const found = await loadSystemCertificates({ platform: 'linux', env: { SSL_CERT_FILE: path.join(one, 'none'), SSL_CERT_DIR: `${one}${path.delimiter}${two}` } });
  assert.deepEqual(found.certificates.map((c) => c.trim()), [ca.caPem.trim(), tls.rootCertificates[0].trim()]);
  const defaults = await loadSystemCertificates({ platform: 'linux', env: {} });
  const bundleFile = LINUX_CA_FILES.find((f) => fs.existsSync(f));
  if (bundleFile) {
    assert.equal(defaults.sources[0], `${pemCertificates(fs.readFileSync(bundleFile, 'utf8')).length} from ${bundleFile}`);
    assert.ok(defaults.certificates.length > 50, 'a real distribution bundle');
  }
});

test('macOS reads the system keychains with `security find-certificate -a -p`; Windows only the variables', async () => {
  const calls: string[][] = [];
  const mac = await loadSystemCertificates({
    platform: 'darwin',
    env: {},
    run: async (file, args) => {
      calls.push([file, ...args]);
      return `${ca.caPem}${tls.rootCertificates[0]}\n`;
    },
  });
  assert.deepEqual(calls, [['/usr/bin/security', 'find-certificate', '-a', '-p', ...MAC_KEYCHAINS]]);
  assert.equal(mac.certificates.length, 2);
  assert.equal(await systemTrust({ platform: 'win32', env: {} }), undefined, 'nothing found: no ca, so the defaults stay');
  const win = await systemTrust({ platform: 'win32', env: { SSL_CERT_FILE: ca.caFile } });
  assert.ok(win);
  assert.equal(win.ca.length, tls.rootCertificates.length + 1, "Node's roots plus the CA");
  assert.match(win.describe, /\(1 not among Node's roots\)$/);
});
