/**
 * The secrets guard: files the agent must never see (keys, `.env`, the `.git` folder). One list of
 * globs (the `agentBridge.excludeGlobs` setting, or the headless host's defaults) decides three
 * things: read tools refuse such a file, searches skip it, and a change to it always needs a person.
 */
import type { SecretGuard } from '../workspace/globSet';
import { expandBraces } from '../glob/braces';

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
  // Added after the list's first 75 globs were recorded (test/security/policyGlobs.test.ts): keys
  // by other names (gitrob's `.*_rsa`), state backups, and more clients' login files.
  '**/*_rsa',
  '**/*_dsa',
  '**/*_ecdsa',
  '**/*_ed25519',
  '**/ssh_host_*_key',
  '**/*deploy_key',
  '**/otr.private_key',
  '**/*.keypair',
  '**/*.pk8',
  '**/*.pvk',
  '**/*.snk',
  '**/*.jwk',
  '**/*.bks',
  '**/*.jceks',
  '**/*.tfstate.*',
  '**/.config/git/credentials',
  '**/.vscode/sftp.json',
  '**/#.env*',
  '**/.mylogin.cnf',
  '**/nuget.config',
  '**/.bundle/config',
  '**/.databrickscfg',
  '**/knife.rb',
  '**/.esmtprc',
  '**/.zhistory',
  '**/.history',
];

/** `*.pem` becomes `*.[pP][eE][mM]`: search globs are case-sensitive, secrets are matched without case. */
function caseless(glob: string): string {
  if (/[[\]{}\\]/.test(glob)) return glob;
  return glob.replace(/[a-z]/gi, (c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`));
}

/**
 * Search exclusions plus the secret globs, without duplicates: what ripgrep is told to skip, since it
 * cannot ask the policy. It matches names byte for byte, so each secret glob is given in both
 * Unicode forms (composed and decomposed) for it to skip the file whichever way its name is stored.
 */
export function withSecretExcludes(excludes: readonly string[], guard: SecretGuard | undefined): readonly string[] {
  const forms = (glob: string): string[] => [glob.normalize('NFC'), glob.normalize('NFD')];
  return guard ? [...new Set([...excludes, ...guard.globs.flatMap(forRipgrep).flatMap((g) => forms(caseless(g)))])] : excludes;
}

/** Ripgrep refuses nested braces (`a{b,{c,d}}`) and would fail the whole search: such a glob is given expanded. */
function forRipgrep(glob: string): string[] {
  if (!glob.includes('{')) return [glob];
  try {
    const expanded = expandBraces(glob);
    return expanded.length <= MAX_EXPANDED_FOR_RIPGREP ? expanded : [glob];
  } catch {
    return [glob]; // a refused glob already hides every file from the policy
  }
}

/** Expanded globs one secret glob may add to ripgrep's command line. */
const MAX_EXPANDED_FOR_RIPGREP = 32;
