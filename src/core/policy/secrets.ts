/**
 * The secrets guard: files the agent must never see (keys, `.env`, the `.git` folder). One list of
 * globs (the `agentBridge.excludeGlobs` setting, or the headless host's defaults) decides three
 * things: read tools refuse such a file, searches skip it, and a change to it always needs a person.
 */
import { Minimatch } from 'minimatch';

/** The setting that holds the globs (named in every refusal, so the developer knows what to change). */
export const EXCLUDE_GLOBS_SETTING = 'agentBridge.excludeGlobs';

/**
 * Files that hold credentials, matched against project-relative paths (case-insensitively). The
 * names are the credential *files* that secret scanners know by name (gitrob's and shhgit's file
 * signatures, trufflehog's and gitleaks' path rules) and the tools' documented places for tokens:
 * keys and keystores, cloud and container logins, package-registry tokens, infrastructure state,
 * password databases, shell histories. A scanner also reads contents; this list cannot, so a
 * secret in an ordinary file (`config.php`, `settings.py`) is not covered.
 */
export const DEFAULT_EXCLUDE_GLOBS: readonly string[] = [
  // Environment files, private keys, certificates with keys, keystores.
  '**/.env*',
  '**/*.pem',
  '**/*.key',
  '**/*.p8',
  '**/*.p12',
  '**/*.pkcs12',
  '**/*.pfx',
  '**/*.jks',
  '**/*.keystore',
  '**/*.ppk',
  '**/*.asc',
  '**/*.gpg',
  '**/*.keytab',
  '**/*.ovpn',
  '**/id_rsa*',
  '**/id_dsa*',
  '**/id_ecdsa*',
  '**/id_ed25519*',
  '**/.ssh/**',
  '**/.gnupg/**',
  // Logins of version control, package registries and their clients.
  '**/.git/**',
  '**/.git-credentials',
  '**/.hg/hgrc',
  '**/.netrc',
  '**/_netrc',
  '**/.npmrc',
  '**/.yarnrc',
  '**/.yarnrc.yml',
  '**/.pypirc',
  '**/pip.conf',
  '**/.gem/credentials',
  '**/.cargo/credentials',
  '**/.cargo/credentials.toml',
  '**/.m2/settings.xml',
  '**/.m2/settings-security.xml',
  '**/auth.json',
  '**/.config/gh/hosts.yml',
  '**/.config/hub',
  // Cloud, container and infrastructure credentials.
  '**/credentials.json',
  '**/credentials.xml',
  '**/.credentials',
  '**/.aws/credentials',
  '**/.azure/**',
  '**/.config/gcloud/**',
  '**/application_default_credentials.json',
  '**/.boto',
  '**/.s3cfg',
  '**/.docker/config.json',
  '**/.dockercfg',
  '**/.kube/config',
  '**/kubeconfig',
  '**/*.kubeconfig',
  '**/.vault-token',
  '**/*.tfstate',
  '**/*.tfstate.backup',
  '**/*.tfvars',
  '**/*.tfvars.json',
  '**/.terraformrc',
  '**/terraform.rc',
  '**/.terraform.d/credentials.tfrc.json',
  '**/rclone.conf',
  '**/.tugboat',
  // Databases, web servers, file-transfer clients, password managers, shell histories.
  '**/.pgpass',
  '**/.my.cnf',
  '**/.htpasswd',
  '**/sftp-config.json',
  '**/.ftpconfig',
  '**/.remote-sync.json',
  '**/filezilla.xml',
  '**/recentservers.xml',
  '**/sitemanager.xml',
  '**/*.kdb',
  '**/*.kdbx',
  '**/*.psafe3',
  '**/.*_history',
];

/**
 * A compiled list of globs over project-relative paths (forward slashes), matched the one way every
 * check here matches: minimatch, dotfiles included, without case (a case-insensitive disk opens
 * `.GIT/config` as `.git/config`), and without regard to Unicode normalization (glob and path both
 * in NFC: `ä` may be stored as `a` plus a combining mark, and macOS opens either spelling). On a
 * system where `\` is a name character, a path with one is matched as written and with `/` in its
 * place, the stricter answer winning. Answers are remembered: agents ask about the same files again
 * and again, and each path is matched twice (as itself and as a folder's contents).
 */
export class GlobSet {
  readonly globs: readonly string[];
  private readonly matchers: readonly { glob: string; needle: string | undefined; m: Minimatch }[];
  /** Remembered answers: the glob that matched, or null for none. */
  private readonly seen = new Map<string, string | null>();

  constructor(globs: readonly string[]) {
    this.globs = globs.map((g) => g.trim()).filter((g) => g !== '' && !g.startsWith('#'));
    this.matchers = this.globs.map((glob) => {
      const nfc = glob.normalize('NFC');
      return { glob, needle: needleOf(nfc), m: new Minimatch(nfc, OPTIONS) };
    });
  }

  /** The first glob that matches `rel`, or undefined. A folder matches when its contents would (`.git`). */
  match(rel: string): string | undefined {
    const known = this.seen.get(rel);
    if (known !== undefined) return known ?? undefined;
    const nfc = rel.normalize('NFC');
    const slashed = nfc.replace(/\\/g, '/');
    const glob = this.matchClean(slashed) ?? (BACKSLASH_IS_A_NAME_CHARACTER && slashed !== nfc ? this.matchClean(nfc) : undefined);
    if (this.seen.size >= MATCH_MEMO_SIZE) this.seen.clear();
    this.seen.set(rel, glob ?? null);
    return glob;
  }

  private matchClean(rel: string): string | undefined {
    const clean = rel.replace(/^\.\/+/, '').replace(/\/+$/, '');
    if (clean === '' || clean === '.') return undefined;
    const inside = `${clean}/x`;
    // A glob is tried only on a path that has its literal part: a search answer of 16,000 files was
    // otherwise matched against every glob, costing more than ripgrep's whole search.
    const lower = inside.toLowerCase();
    return this.matchers.find(({ needle, m }) => (needle === undefined || lower.includes(needle)) && (m.match(clean) || m.match(inside)))?.glob;
  }
}

/**
 * The longest literal part of a glob that every path it matches must contain (lowercased: the
 * globs match without case), or undefined when there is none to rely on. Only text outside braces,
 * classes and extglob groups counts, cut at wildcards and at `/` (`**\/` may match no folder).
 */
export function needleOf(glob: string): string | undefined {
  if (glob.startsWith('!')) return undefined; // a negation matches what lacks its text
  let depth = 0;
  let run = '';
  let best = '';
  const flush = (): void => {
    if (run.length > best.length) best = run;
    run = '';
  };
  for (const ch of glob) {
    if (ch === '{' || ch === '[' || ch === '(') {
      flush();
      depth++;
    } else if (ch === '}' || ch === ']' || ch === ')') {
      flush();
      depth = Math.max(0, depth - 1);
    } else if (depth > 0 || '*?!+@\\/,|'.includes(ch)) {
      flush();
    } else {
      run += ch;
    }
  }
  flush();
  return best ? best.toLowerCase() : undefined;
}

const OPTIONS = { dot: true, nocase: true, nocomment: true } as const;
const BACKSLASH_IS_A_NAME_CHARACTER = process.platform !== 'win32';
/** Paths whose answer `GlobSet.match` remembers; the memo starts over when full. */
const MATCH_MEMO_SIZE = 10_000;

/** The secret globs: `agentBridge.excludeGlobs`, or the headless host's defaults plus `--exclude-glob`. */
export class SecretGuard extends GlobSet {
  constructor(globs: readonly string[] = DEFAULT_EXCLUDE_GLOBS) {
    super(globs);
  }

  isSecret(rel: string): boolean {
    return this.match(rel) !== undefined;
  }
}

/** `*.pem` becomes `*.[pP][eE][mM]`: search globs are case-sensitive, secrets are matched without case. */
function caseless(glob: string): string {
  if (/[[\]{}\\]/.test(glob)) return glob;
  return glob.replace(/[a-z]/gi, (c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`));
}

/**
 * Search exclusions plus the secret globs, without duplicates: what a Workspace's `searchExcludes()`
 * returns. The search engines match names byte for byte, so each secret glob is given in both
 * Unicode forms (composed and decomposed) for them to skip the file whichever way its name is stored.
 */
export function withSecretExcludes(excludes: readonly string[], guard: SecretGuard | undefined): readonly string[] {
  const forms = (glob: string): string[] => [glob.normalize('NFC'), glob.normalize('NFD')];
  return guard ? [...new Set([...excludes, ...guard.globs.flatMap((g) => forms(caseless(g)))])] : excludes;
}
