/**
 * The operating system's certificate authorities, for `wss://` backends signed by a company CA.
 *
 * Node verifies TLS against the Mozilla roots compiled into it, not the OS store, so a backend
 * whose CA an administrator added to the system is refused. This reads the store the way the
 * platform's own tools do and returns it with Node's roots, to pass as `ca` to the WebSocket:
 *
 * - Linux and other Unixes: OpenSSL's places. `SSL_CERT_FILE` names the bundle (otherwise the
 *   first of the distributions' bundles that exists); `SSL_CERT_DIR` (a `:`-separated list) names
 *   folders of certificates, read when set or when no bundle exists (every distribution's bundle
 *   already holds its folder's certificates).
 * - macOS: `security find-certificate -a -p` of the system keychains, plus `SSL_CERT_FILE` /
 *   `SSL_CERT_DIR` when set.
 * - Windows: only `SSL_CERT_FILE` / `SSL_CERT_DIR` when set. The Windows store needs a native
 *   module; with nothing found no `ca` is passed, so Node's defaults stay and, in VS Code, its
 *   own `http.systemCertificates` support (which does read the Windows store) is left in charge.
 *
 * `NODE_EXTRA_CA_CERTS` is kept too: Node adds it to its defaults, which an explicit `ca` replaces.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as tls from 'node:tls';

/** Bundles of the distributions, in OpenSSL's and Go's order of looking. */
export const LINUX_CA_FILES = [
  '/etc/ssl/certs/ca-certificates.crt', // Debian, Ubuntu, Arch, Gentoo
  '/etc/pki/tls/certs/ca-bundle.crt', // Fedora, RHEL
  '/etc/ssl/ca-bundle.pem', // openSUSE
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem', // CentOS, RHEL 7
  '/etc/pki/tls/cacert.pem', // OpenELEC
  '/etc/ssl/cert.pem', // Alpine
] as const;
const LINUX_CA_DIRS = ['/etc/ssl/certs', '/etc/pki/tls/certs'] as const;
export const MAC_KEYCHAINS = ['/System/Library/Keychains/SystemRootCertificates.keychain', '/Library/Keychains/System.keychain'] as const;

export interface SystemCaOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly platform?: NodeJS.Platform;
  /** Runs a program and resolves with its stdout (macOS `security`); for tests on other systems. */
  readonly run?: (file: string, args: readonly string[]) => Promise<string>;
}

/** What was found: PEM certificates (deduplicated) and where they came from. */
export interface SystemCertificates {
  readonly certificates: string[];
  readonly sources: string[];
}

/** The trust to verify a `wss://` backend with: Node's roots plus the system's, and a line saying where they came from. */
export interface TlsTrust {
  readonly ca: string[];
  readonly describe: string;
}

const PEM = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+?-----END CERTIFICATE-----/g;
/** File names OpenSSL looks up in a folder (`<hash>.<n>`, made by c_rehash) and the usual PEM suffixes. */
const CERT_NAME = /^[0-9a-f]{8}\.\d+$|\.(pem|crt|cer)$/i;

/**
 * The PEM certificate blocks of a text (`TRUSTED CERTIFICATE` blocks, which Node cannot use, are
 * left out). They are not parsed here: Node skips a broken one in `ca` and keeps the rest.
 */
export function pemCertificates(text: string): string[] {
  return [...text.matchAll(PEM)].map((m) => m[0]);
}

/** Certificates in the order added, each once (compared by their base64 body, not their line breaks). */
class PemSet {
  readonly list: string[] = [];
  private readonly seen = new Set<string>();

  /** Adds the new ones; returns how many were new. */
  add(pems: readonly string[]): number {
    let n = 0;
    for (const pem of pems) {
      const key = pem.replace(/-----[^-]+-----|\s/g, '');
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.list.push(pem);
      n++;
    }
    return n;
  }
}

function execText(file: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, [...args], { maxBuffer: 64 * 1024 * 1024, timeout: 10_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

async function readDir(dir: string): Promise<string[] | undefined> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return undefined;
  }
  const texts = await Promise.all(names.filter((n) => CERT_NAME.test(n)).sort().map((n) => readText(path.join(dir, n))));
  return texts.filter((t): t is string => t !== undefined);
}

/** Reads the operating system's CA certificates (see the module comment for where). */
export async function loadSystemCertificates(o: SystemCaOptions = {}): Promise<SystemCertificates> {
  const env = o.env ?? process.env;
  const platform = o.platform ?? process.platform;
  const found = new PemSet();
  const sources: string[] = [];
  const take = (source: string, texts: readonly string[]): void => {
    sources.push(`${found.add(texts.flatMap(pemCertificates))} from ${source}`);
  };

  const envFile = env.SSL_CERT_FILE?.trim();
  const envDirs = (env.SSL_CERT_DIR ?? '').split(path.delimiter).map((d) => d.trim()).filter(Boolean);
  const fromEnv = async (): Promise<void> => {
    if (envFile) {
      const text = await readText(envFile);
      if (text === undefined) sources.push(`SSL_CERT_FILE ${envFile} (unreadable)`);
      else take(envFile, [text]);
    }
    for (const dir of envDirs) take(dir, (await readDir(dir)) ?? []);
  };

  if (platform === 'darwin') {
    const run = o.run ?? execText;
    try {
      take('the macOS system keychains', [await run('/usr/bin/security', ['find-certificate', '-a', '-p', ...MAC_KEYCHAINS])]);
    } catch (e) {
      sources.push(`the macOS keychains (unreadable: ${(e as Error).message})`);
    }
    await fromEnv();
  } else if (platform === 'win32') {
    await fromEnv();
  } else {
    let bundle = false;
    if (envFile) {
      await fromEnv();
      bundle = true;
    } else {
      for (const file of LINUX_CA_FILES) {
        const text = await readText(file);
        if (text === undefined) continue;
        take(file, [text]);
        bundle = true;
        break;
      }
      if (envDirs.length) await fromEnv();
    }
    if (!bundle && !envDirs.length) {
      for (const dir of LINUX_CA_DIRS) {
        const texts = await readDir(dir);
        if (texts?.length) take(dir, texts);
      }
    }
  }
  return { certificates: found.list, sources };
}

/**
 * Node's roots, the system's certificates and `NODE_EXTRA_CA_CERTS`, for the `ca` of a `wss://`
 * connection; undefined when the system gave nothing beyond Node's own defaults (then pass no `ca`).
 */
export async function systemTrust(o: SystemCaOptions = {}): Promise<TlsTrust | undefined> {
  const env = o.env ?? process.env;
  const system = await loadSystemCertificates(o);
  if (system.certificates.length === 0) return undefined;
  const ca = new PemSet();
  ca.add(tls.rootCertificates);
  const fromSystem = ca.add(system.certificates);
  const parts = [`Node's ${tls.rootCertificates.length} roots`, ...system.sources];
  const extra = env.NODE_EXTRA_CA_CERTS?.trim();
  if (extra) {
    const text = await readText(extra);
    if (text !== undefined) parts.push(`${ca.add(pemCertificates(text))} from NODE_EXTRA_CA_CERTS ${extra}`);
  }
  return { ca: ca.list, describe: `${parts.join(', ')} (${fromSystem} not among Node's roots)` };
}
