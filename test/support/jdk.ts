import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Ground truth from the JDK: a sample of java.base's sources (Debian's `openjdk-17-source`,
 * unpacked with `unzip`) and what `javap -v -p` says about the same classes as compiled in the
 * running JDK: members with their erased descriptors and flags, and each method's invoke
 * instructions with source lines. Both are cached under the OS temp folder, keyed by the JDK's
 * version, so only the first run pays for unzip and javap.
 */

interface JavapInvoke {
  /** Qualifying type, dotted with `.` for nesting (`java.util.Map.Entry`); arrays as `java.lang.Object[]`. */
  readonly owner: string;
  readonly name: string;
  readonly line: number;
}

interface JavapMember {
  readonly kind: 'field' | 'method' | 'constructor' | 'clinit';
  readonly name: string;
  /** Erased parameter types from the descriptor, as simple names (`Entry`, `int[]`). */
  readonly params: readonly string[];
  readonly flags: readonly string[];
  readonly invokes: readonly JavapInvoke[];
}

export interface JavapClass {
  /** Binary name: `java.util.ArrayList$Itr`. */
  readonly binaryName: string;
  /** Source form: `java.util.ArrayList.Itr`. */
  readonly fqn: string;
  readonly sourceFile: string;
  readonly superName: string;
  readonly flags: readonly string[];
  readonly members: readonly JavapMember[];
  /** Binary names of member (not local or anonymous) classes declared directly inside. */
  readonly memberClasses: readonly string[];
  /** For a member class: its modifiers in the InnerClasses attribute (`private static`…). */
  readonly innerFlags?: readonly string[];
}

export interface JdkSample {
  /** Folder holding `java/lang/…`, `java/util/…` sources. */
  readonly srcRoot: string;
  /** Every sampled class and its member classes, by source-form name. */
  readonly classes: ReadonlyMap<string, JavapClass>;
}

const run = (cmd: string, args: string[]): string =>
  execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });

function has(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function javaVersion(): string | undefined {
  try {
    return run('javap', ['-version']).trim();
  } catch {
    return undefined;
  }
}

/** src.zip of the JDK whose javap is on PATH: $JDK_SRC_ZIP, else /usr/lib/jvm/<jdk of that major>/lib/src.zip. */
function findSrcZip(): string | undefined {
  if (process.env.JDK_SRC_ZIP) return fs.existsSync(process.env.JDK_SRC_ZIP) ? process.env.JDK_SRC_ZIP : undefined;
  const major = javaVersion()?.split('.')[0];
  if (!major || !fs.existsSync('/usr/lib/jvm')) return undefined;
  const dirs = fs.readdirSync('/usr/lib/jvm').filter((d) => new RegExp(`(^|-)${major}(-|$)`).test(d));
  for (const d of dirs) {
    const zip = path.join('/usr/lib/jvm', d, 'lib', 'src.zip');
    if (fs.existsSync(zip)) return zip;
  }
  return undefined;
}

/** Why the JDK ground truth cannot run here, or undefined when it can. */
export function jdkMissing(): string | undefined {
  if (!javaVersion()) return 'javap not on PATH (install a JDK 17)';
  if (!findSrcZip()) return 'JDK sources not found (apt-get install openjdk-17-source, or set JDK_SRC_ZIP)';
  if (!has('unzip')) return 'unzip not on PATH';
  return undefined;
}

function cacheDir(): string {
  const dir = path.join(os.tmpdir(), `agent-bridge-jdk-${javaVersion() ?? 'none'}`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Runs `fill(tmpDir)` and moves the result to `final` unless it is there already. Test files run
 * in parallel processes: each fills its own folder and the first rename wins, so nobody ever
 * reads a half-written cache.
 */
function once(final: string, fill: (tmp: string) => void): string {
  if (fs.existsSync(final)) return final;
  const tmp = `${final}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  fill(tmp);
  try {
    fs.renameSync(tmp, final);
  } catch {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!fs.existsSync(final)) throw new Error(`could not create ${final}`);
  }
  return final;
}

/** Unpacks the top-level sources of `packages` (e.g. `java/util`) once; returns the folder holding them. */
export function unpackSources(packages: readonly string[]): string {
  const key = createHash('sha1').update(packages.join(',')).digest('hex').slice(0, 12);
  const dir = once(path.join(cacheDir(), `src-${key}`), (tmp) => {
    // -W: `*` does not cross `/`, so sub-packages stay out.
    run('unzip', ['-q', '-o', '-W', findSrcZip() as string, ...packages.map((p) => `java.base/${p}/*.java`), '-d', tmp]);
  });
  return path.join(dir, 'java.base');
}

const PRIM: Record<string, string> = { B: 'byte', C: 'char', D: 'double', F: 'float', I: 'int', J: 'long', S: 'short', Z: 'boolean', V: 'void' };

/** `(Ljava/util/Map$Entry;[I)V` → `['Entry', 'int[]']`. */
function descriptorParams(desc: string): string[] {
  const out: string[] = [];
  const inner = desc.slice(desc.indexOf('(') + 1, desc.indexOf(')'));
  let i = 0;
  while (i < inner.length) {
    let dims = 0;
    while (inner[i] === '[') {
      dims++;
      i++;
    }
    let simple: string;
    if (inner[i] === 'L') {
      const end = inner.indexOf(';', i);
      const name = inner.slice(i + 1, end);
      simple = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('$')) + 1);
      i = end + 1;
    } else {
      simple = PRIM[inner[i] as string] ?? '?';
      i++;
    }
    out.push(simple + '[]'.repeat(dims));
  }
  return out;
}

/** `java/util/Map$Entry` → `java.util.Map.Entry`; `"[Ljava/lang/Object;"` → `java.lang.Object[]`. */
function ownerName(raw: string): string {
  const s = raw.replace(/^"|"$/g, '');
  const dims = /^\[+/.exec(s)?.[0].length ?? 0;
  let base = s.slice(dims);
  if (dims) base = base.startsWith('L') ? base.slice(1, -1) : (PRIM[base] ?? base);
  return base.replace(/[/$]/g, '.') + '[]'.repeat(dims);
}

const INVOKE = /^\s+(\d+): invoke(?:virtual|special|static|interface)\s+#\d+(?:,\s+\d+)?\s+\/\/ (?:Method|InterfaceMethod) (.+):\(/;

function parseClass(block: string): JavapClass | undefined {
  const lines = block.split('\n');
  const thisClass = /this_class: #\d+\s+\/\/ (\S+)/.exec(block)?.[1];
  if (!thisClass) return undefined;
  const binaryName = thisClass.replace(/\//g, '.');
  const superName = ownerName(/super_class: #\d+\s+\/\/ (\S+)/.exec(block)?.[1] ?? 'java/lang/Object');
  const sourceFile = /Compiled from "([^"]+)"/.exec(block)?.[1] ?? '';
  const classFlags = /^\s*flags: \(0x[0-9a-f]+\) (.*)$/m.exec(block)?.[1]?.split(', ') ?? [];
  const members: JavapMember[] = [];
  const memberClasses: string[] = [];
  const start = lines.indexOf('{');
  let cur: { decl: string; desc: string; flags: string[]; calls: Array<{ pc: number; owner: string; name: string }>; lines: Array<[number, number]> } | undefined;
  const finish = (): void => {
    if (!cur) return;
    const d = cur.decl.replace(/;$/, '');
    const table = cur.lines.sort((a, b) => a[1] - b[1]);
    const lineAt = (pc: number): number => {
      let l = 0;
      for (const [line, p] of table) if (p <= pc) l = line;
      return l;
    };
    const invokes = cur.calls.map((c) => ({ owner: c.owner, name: c.name, line: lineAt(c.pc) }));
    if (d === 'static {}') members.push({ kind: 'clinit', name: '<clinit>', params: [], flags: cur.flags, invokes });
    else if (d.includes('(')) {
      const head = d.slice(0, d.indexOf('(')).trim();
      const name = head.slice(head.lastIndexOf(' ') + 1);
      const kind = name === binaryName ? 'constructor' : 'method';
      members.push({ kind, name: kind === 'constructor' ? '<init>' : name, params: descriptorParams(cur.desc), flags: cur.flags, invokes });
    } else {
      members.push({ kind: 'field', name: d.slice(d.lastIndexOf(' ') + 1), params: [], flags: cur.flags, invokes });
    }
    cur = undefined;
  };
  let i = start + 1;
  for (; i < lines.length; i++) {
    const l = lines[i] as string;
    if (l === '}') break;
    if (/^ {2}\S/.test(l)) {
      finish();
      cur = { decl: l.trim(), desc: '', flags: [], calls: [], lines: [] };
      continue;
    }
    if (!cur) continue;
    let m: RegExpExecArray | null;
    if ((m = /^ {4}descriptor: (.*)$/.exec(l))) cur.desc = m[1] as string;
    else if ((m = /^ {4}flags: \(0x[0-9a-f]+\) ?(.*)$/.exec(l))) cur.flags = (m[1] as string).split(', ').filter(Boolean);
    else if ((m = INVOKE.exec(l))) {
      const spec = m[2] as string;
      const dot = spec.lastIndexOf('.');
      const owner = dot < 0 ? binaryName.replace(/\$/g, '.') : ownerName(spec.slice(0, dot));
      const name = (dot < 0 ? spec : spec.slice(dot + 1)).replace(/"/g, '');
      cur.calls.push({ pc: Number(m[1]), owner, name });
    } else if ((m = /^\s+line (\d+): (\d+)$/.exec(l))) cur.lines.push([Number(m[1]), Number(m[2])]);
  }
  finish();
  let innerFlags: string[] | undefined;
  for (const l of lines.slice(i)) {
    const m = /^\s+([a-z ]*)#\d+= #\d+ of #\d+;\s+\/\/ [\w$]+=class (\S+) of class (\S+)$/.exec(l);
    if (m && m[3] === thisClass) memberClasses.push((m[2] as string).replace(/\//g, '.'));
    if (m && m[2] === thisClass) innerFlags = (m[1] as string).trim().split(/\s+/).filter(Boolean);
  }
  return {
    binaryName,
    fqn: binaryName.replace(/\$/g, '.'),
    sourceFile,
    superName,
    flags: classFlags,
    members,
    memberClasses,
    ...(innerFlags ? { innerFlags } : {}),
  };
}

function javap(names: readonly string[]): JavapClass[] {
  const file = path.join(cacheDir(), `javap-${createHash('sha1').update(names.join(',')).digest('hex').slice(0, 16)}.txt`);
  let text: string;
  if (fs.existsSync(file)) text = fs.readFileSync(file, 'utf8');
  else {
    text = run('javap', ['-v', '-p', ...names]);
    const tmp = `${file}.tmp-${process.pid}`;
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  }
  return text
    .split(/^(?=Classfile )/m)
    .map(parseClass)
    .filter((c): c is JavapClass => !!c);
}

/**
 * Sources of `packages` and javap of `classes` (fully qualified top-level names) together with
 * all their member classes, nested ones included.
 */
export function loadJdkSample(packages: readonly string[], classes: readonly string[]): JdkSample {
  const srcRoot = unpackSources(packages);
  const all = new Map<string, JavapClass>();
  let batch = [...classes];
  while (batch.length) {
    const found = javap(batch);
    batch = [];
    for (const c of found) {
      all.set(c.fqn, c);
      batch.push(...c.memberClasses.filter((n) => !all.has(n.replace(/\$/g, '.'))));
    }
  }
  return { srcRoot, classes: all };
}

/** Packages unpacked for the tests: enough of java.base for the sample's calls to resolve. */
export const SAMPLE_PACKAGES = ['java/lang', 'java/util', 'java/io', 'java/util/function'];

/** Top-level classes compared with javap (their member classes too). */
export const SAMPLE_CLASSES = [
  ...'ArrayList ArrayDeque HashMap HashSet LinkedHashMap LinkedList TreeMap TreeSet PriorityQueue Vector Stack AbstractList AbstractMap AbstractCollection EnumMap IdentityHashMap WeakHashMap Properties Objects Optional OptionalInt StringJoiner StringTokenizer BitSet Collections Arrays Random UUID Base64 Iterator List Map Comparator Scanner Timer Locale Formatter Spliterators'
    .split(' ')
    .map((c) => `java.util.${c}`),
  ...'String StringBuilder AbstractStringBuilder Integer Long Math Boolean Enum Thread ThreadLocal Throwable Record Iterable StackTraceElement ProcessBuilder Character'
    .split(' ')
    .map((c) => `java.lang.${c}`),
  ...'File BufferedReader BufferedWriter InputStream OutputStream PrintStream ByteArrayOutputStream DataInputStream Reader StringWriter FileInputStream Console'
    .split(' ')
    .map((c) => `java.io.${c}`),
  ...'Function Predicate BiFunction'.split(' ').map((c) => `java.util.function.${c}`),
];

/** All of a module's sources (e.g. `java.base`, ~3,100 files), unpacked once; returns the module folder. */
export function unpackModule(module: string): string {
  const dir = once(path.join(cacheDir(), `module-${module}`), (tmp) => {
    run('unzip', ['-q', '-o', findSrcZip() as string, `${module}/*`, '-d', tmp]);
  });
  return path.join(dir, module);
}
