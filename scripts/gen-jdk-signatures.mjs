/* global process, URL */
// Generates src/core/code/java/jdk-signatures.txt: the public and protected members of the JDK's most
// used packages (java.lang, java.util, java.util.function, java.util.stream, java.io, java.nio,
// java.math, java.time, …), read with `javap -protected` from the JDK on PATH (17 here) and written
// compactly. The Java resolver uses it for receivers whose type is in the JDK but whose sources are
// not in the project: `sb.append(a).append(b)`, `map.get(k).trim()`, `list.stream().map(…)`.
// Format: a first line naming the package each `~x.` abbreviates, then per class
// `=fqn|kind (c, i, e)|modifiers|type parameters|extends|implements` and its members:
// `f[s]|name|type`, `m[s][a]|name|type parameters|return type|parameter types` (s: static,
// a: abstract), `c||||parameter types` for constructors.
//   node --import tsx scripts/gen-jdk-signatures.mjs     (needs javap and jimage, i.e. a JDK 17)
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { splitTopLevel as splitTop } from '../src/core/code/java/typeRef.ts';

const PACKAGES = [
  'java.lang', 'java.lang.constant', 'java.lang.ref', 'java.util', 'java.util.function', 'java.util.stream',
  'java.util.regex', 'java.util.concurrent', 'java.util.concurrent.atomic', 'java.util.concurrent.locks',
  'java.io', 'java.nio', 'java.nio.charset', 'java.nio.file', 'java.math', 'java.time', 'java.time.format',
  'java.time.temporal', 'java.time.zone',
];
const OUT = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'src', 'core', 'code', 'java', 'jdk-signatures.txt');

const run = (cmd, args) => execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
const javaHome = path.dirname(path.dirname(fs.realpathSync(run('sh', ['-c', 'command -v javap']).trim())));
const version = run('javap', ['-version']).trim();

// Every named class of the packages (anonymous and local ones, `$1`, `$1Local`, are left out).
const wanted = new Set(PACKAGES.map((p) => p.replace(/\./g, '/')));
const classes = [];
for (const line of run(path.join(javaHome, 'bin', 'jimage'), ['list', path.join(javaHome, 'lib', 'modules')]).split('\n')) {
  const m = /^\s+(.+)\/([^/]+)\.class$/.exec(line);
  if (!m || !wanted.has(m[1]) || /\$\d/.test(m[2]) || m[2] === 'module-info' || m[2] === 'package-info') continue;
  classes.push(`${m[1].replace(/\//g, '.')}.${m[2]}`);
}
classes.sort();

/** `java.util.Map$Entry<K, V>` → `java.util.Map.Entry<K,V>`. */
const norm = (t) => t.replace(/\$/g, '.').replace(/,\s+/g, ',').trim();

/** `public static <T> java.util.List<T> of(T...)` → parts; undefined for what is not a member. */
function member(decl, simpleName) {
  const paren = decl.indexOf('(');
  if (paren < 0) {
    const words = decl.replace(/;$/, '').trim();
    const name = words.slice(words.lastIndexOf(' ') + 1);
    const head = words.slice(0, words.lastIndexOf(' '));
    const mods = head.split(' ').filter((w) => ['public', 'protected', 'static', 'final'].includes(w));
    const type = head.split(' ').filter((w) => !['public', 'protected', 'static', 'final', 'volatile', 'transient'].includes(w)).join(' ');
    return { kind: 'f', name, static: mods.includes('static'), type: norm(type) };
  }
  let head = decl.slice(0, paren).trim();
  const params = decl.slice(paren + 1, decl.lastIndexOf(')'));
  const mods = [];
  let typeParams = '';
  for (;;) {
    const m = /^(public|protected|static|final|abstract|default|native|synchronized|strictfp)\s+/.exec(head);
    if (m) {
      mods.push(m[1]);
      head = head.slice(m[0].length);
      continue;
    }
    if (head.startsWith('<')) {
      let depth = 0;
      let i = 0;
      for (; i < head.length; i++) {
        if (head[i] === '<') depth++;
        if (head[i] === '>' && --depth === 0) break;
      }
      typeParams = head.slice(1, i);
      head = head.slice(i + 1).trim();
      continue;
    }
    break;
  }
  const space = head.lastIndexOf(' ');
  const name = head.slice(space + 1);
  const ret = space < 0 ? '' : head.slice(0, space).trim();
  const ctor = !ret && name.replace(/\$/g, '.').endsWith(`.${simpleName}`);
  return {
    kind: ctor ? 'c' : 'm',
    name: ctor ? '' : name,
    static: mods.includes('static'),
    abstract: mods.includes('abstract'),
    typeParams: norm(typeParams),
    ret: norm(ret),
    params: splitTop(params).map(norm),
  };
}

const blocks = [];
for (let i = 0; i < classes.length; i += 200) {
  const text = run('javap', ['-protected', ...classes.slice(i, i + 200)]);
  blocks.push(...text.split(/^(?=Compiled from )/m).filter((b) => b.trim()));
}

/** Parsed classes by fully qualified name (`.` for nesting). */
const parsed = new Map();
for (const block of blocks) {
  const body = block.split('\n').filter((l) => !l.startsWith('Compiled from') && l.trim());
  const m = /^((?:[a-z]+ )*)(class|interface) ([\w.$]+)(<.*?>)?(?: extends (.*?))?(?: implements (.*?))? \{$/.exec(body[0]);
  if (!m) continue;
  const [, mods, kind, binary, tps, ext, impl] = m;
  const simple = binary.slice(Math.max(binary.lastIndexOf('.'), binary.lastIndexOf('$')) + 1);
  const members = [];
  for (const l of body.slice(1)) {
    const decl = l.trim();
    if (decl === '}' || decl.startsWith('static {}')) continue;
    members.push(member(decl.replace(/\s+throws\s+[^;]*;$/, ';'), simple));
  }
  parsed.set(binary.replace(/\$/g, '.'), {
    fqn: binary.replace(/\$/g, '.'),
    kind: kind === 'interface' ? 'i' : /^java\.lang\.Enum</.test(ext ?? '') ? 'e' : 'c',
    mods: (mods ?? '').trim().split(' ').filter((w) => ['public', 'protected', 'abstract', 'final', 'static'].includes(w)),
    typeParams: tps ? splitTop(tps.slice(1, -1)).map((p) => norm(p)) : [],
    supers: [...(ext ? splitTop(ext) : []), ...(impl ? splitTop(impl) : [])].map(norm),
    ext: ext ? splitTop(ext).map(norm) : [],
    impl: impl ? splitTop(impl).map(norm) : [],
    members,
  });
}

const rawOf = (t) => t.replace(/<.*$/, '');
const argsOf = (t) => (t.includes('<') ? splitTop(t.slice(t.indexOf('<') + 1, t.lastIndexOf('>'))) : []);

// Public and protected classes, and the package-private ones they inherit from (AbstractStringBuilder).
const kept = new Set();
const keep = (fqn) => {
  const c = parsed.get(fqn);
  if (!c || kept.has(fqn)) return;
  kept.add(fqn);
  for (const s of c.supers) keep(rawOf(s));
};
for (const c of parsed.values()) {
  const outer = c.fqn.slice(0, c.fqn.lastIndexOf('.'));
  const outerVisible = !parsed.has(outer) || parsed.get(outer).mods.includes('public');
  if ((c.mods.includes('public') || c.mods.includes('protected')) && outerVisible) keep(c.fqn);
}

const sigOf = (mem) => `${mem.name}(${mem.params.join(';')})${mem.ret}`;
/** Member signatures of every supertype, type variables replaced by what the subtype passes. */
function inherited(c, subst = new Map(), out = new Set(), depth = 0) {
  if (depth > 20) return out;
  for (const s of c.supers) {
    const sup = parsed.get(rawOf(s));
    if (!sup) continue;
    const args = argsOf(s).map((a) => a.replace(/\b[A-Z]\w*\b/g, (w) => subst.get(w) ?? w));
    const map = new Map(sup.typeParams.map((p, i) => [p.replace(/ extends .*$/, ''), args[i] ?? '?']));
    const sub = (t) => t.replace(/\b[A-Z]\w*\b/g, (w) => map.get(w) ?? w);
    for (const mem of sup.members) if (mem.kind === 'm' && !mem.static && !mem.typeParams) out.add(sub(sigOf(mem)));
    inherited(sup, map, out, depth + 1);
  }
  return out;
}

const lines = [];
for (const fqn of [...kept].sort()) {
  const c = parsed.get(fqn);
  lines.push(`=${fqn}|${c.kind}|${c.mods.join(' ')}|${c.typeParams.join(',')}|${c.ext.join(';')}|${c.impl.join(';')}`);
  // An override with the same signature and return type adds nothing the supertype does not say,
  // except over Object's methods: javac names Object as the owner only when nothing overrides them.
  const theirs = c.kind === 'i' ? new Set() : inherited(c);
  for (const m of ['equals(java.lang.Object)boolean', 'hashCode()int', 'toString()java.lang.String', 'clone()java.lang.Object', 'finalize()void']) theirs.delete(m);
  for (const mem of c.members) {
    if (mem.kind === 'f') lines.push(`f${mem.static ? 's' : ''}|${mem.name}|${mem.type}`);
    else if (mem.kind === 'm' && !mem.static && !mem.abstract && !mem.typeParams && theirs.has(sigOf(mem))) continue;
    else {
      const flags = `${mem.static ? 's' : ''}${mem.abstract ? 'a' : ''}`;
      lines.push(`${mem.kind}${flags}|${mem.name}|${mem.typeParams}|${mem.ret}|${mem.params.join(';')}`);
    }
  }
}

// Package prefixes become `~` + one letter (`~a.Stream`), most frequent first.
let text = lines.join('\n');
const counts = PACKAGES.map((p) => [p, text.split(`${p}.`).length - 1]).sort((a, b) => b[1] - a[1]);
const dict = counts.map(([p], i) => [p, String.fromCharCode(97 + i)]);
// Longer packages first so `java.util.function.` is not eaten by `java.util.`.
for (const [p, c] of [...dict].sort((a, b) => b[0].length - a[0].length)) {
  text = text.replace(new RegExp(`\\b${p.replace(/\./g, '\\.')}\\.(?=[A-Z])`, 'g'), `~${c}.`);
}
const out = `${dict.map(([p, c]) => `${c}=${p}`).join(' ')}\n${text}\n`;
fs.writeFileSync(OUT, out);
process.stdout.write(`${version.split('\n')[0]}: ${kept.size} of ${classes.length} classes, ${lines.length} lines, ${out.length} bytes → ${path.relative(process.cwd(), OUT)}\n`);
