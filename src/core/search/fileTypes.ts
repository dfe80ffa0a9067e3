import { ToolError } from '../protocol/errors';

/**
 * `file_type` → file-name globs, used by both engines (ripgrep gets them as `--type-add`, the
 * fallback matches them against the file name).
 *
 * Accepted: 'all' (or '', '*'): every file; a language name ('java', 'typescript', 'python');
 * an extension with or without its dot or star ('ts', '.ts', '*.ts'); several of those separated
 * by commas or spaces ('java,kt'). An unknown name is taken as an extension.
 */

const LANGUAGES: Readonly<Record<string, readonly string[]>> = {
  java: ['*.java'],
  kotlin: ['*.kt', '*.kts'],
  kt: ['*.kt', '*.kts'],
  scala: ['*.scala', '*.sc'],
  groovy: ['*.groovy', '*.gvy', '*.gy', '*.gsh'],
  gradle: ['*.gradle', '*.gradle.kts'],
  typescript: ['*.ts', '*.tsx', '*.mts', '*.cts'],
  ts: ['*.ts', '*.tsx', '*.mts', '*.cts'],
  javascript: ['*.js', '*.jsx', '*.mjs', '*.cjs'],
  js: ['*.js', '*.jsx', '*.mjs', '*.cjs'],
  python: ['*.py', '*.pyi'],
  py: ['*.py', '*.pyi'],
  go: ['*.go'],
  golang: ['*.go'],
  rust: ['*.rs'],
  rs: ['*.rs'],
  c: ['*.c', '*.h'],
  cpp: ['*.cpp', '*.cc', '*.cxx', '*.c++', '*.hpp', '*.hh', '*.hxx', '*.h++', '*.h', '*.inl'],
  'c++': ['*.cpp', '*.cc', '*.cxx', '*.c++', '*.hpp', '*.hh', '*.hxx', '*.h++', '*.h', '*.inl'],
  csharp: ['*.cs', '*.csx'],
  'c#': ['*.cs', '*.csx'],
  cs: ['*.cs', '*.csx'],
  ruby: ['*.rb', '*.rake', '*.gemspec', 'Gemfile', 'Rakefile'],
  rb: ['*.rb', '*.rake', '*.gemspec', 'Gemfile', 'Rakefile'],
  php: ['*.php', '*.phtml'],
  swift: ['*.swift'],
  objc: ['*.m', '*.mm', '*.h'],
  dart: ['*.dart'],
  lua: ['*.lua'],
  perl: ['*.pl', '*.pm', '*.t'],
  r: ['*.r', '*.R', '*.Rmd'],
  shell: ['*.sh', '*.bash', '*.zsh', '*.ksh', '*.fish'],
  sh: ['*.sh', '*.bash', '*.zsh', '*.ksh', '*.fish'],
  bash: ['*.sh', '*.bash'],
  powershell: ['*.ps1', '*.psm1', '*.psd1'],
  sql: ['*.sql'],
  html: ['*.html', '*.htm', '*.xhtml'],
  css: ['*.css', '*.scss', '*.sass', '*.less'],
  vue: ['*.vue'],
  svelte: ['*.svelte'],
  xml: ['*.xml', '*.xsd', '*.xsl', '*.xslt', '*.wsdl', '*.pom'],
  json: ['*.json', '*.jsonc', '*.json5'],
  yaml: ['*.yaml', '*.yml'],
  yml: ['*.yaml', '*.yml'],
  toml: ['*.toml'],
  ini: ['*.ini', '*.cfg', '*.conf'],
  properties: ['*.properties'],
  markdown: ['*.md', '*.markdown', '*.mdx'],
  md: ['*.md', '*.markdown', '*.mdx'],
  text: ['*.txt'],
  txt: ['*.txt'],
  proto: ['*.proto'],
  protobuf: ['*.proto'],
  docker: ['Dockerfile', 'Dockerfile.*', '*.dockerfile'],
  dockerfile: ['Dockerfile', 'Dockerfile.*', '*.dockerfile'],
  make: ['Makefile', 'makefile', 'GNUmakefile', '*.mk', '*.mak'],
  makefile: ['Makefile', 'makefile', 'GNUmakefile', '*.mk', '*.mak'],
  cmake: ['CMakeLists.txt', '*.cmake'],
  maven: ['pom.xml'],
};

const ALL = new Set(['', 'all', '*', '*.*', 'any']);
const MAX_FILE_TYPES = 32;
const SAFE_EXTENSION = /^[A-Za-z0-9_+#-]+(\.[A-Za-z0-9_+#-]+)*$/;

/** File-name globs for a `file_type`, or undefined for "every file". Throws VALIDATION_FAILED for a name that is no extension. */
export function fileTypeGlobs(fileType: string): readonly string[] | undefined {
  const names = fileType
    .split(/[\s,;|]+/)
    .map((n) => n.trim())
    .filter((n) => n !== '');
  if (names.length === 0 || names.some((n) => ALL.has(n.toLowerCase()))) return undefined;
  // Each name becomes globs every file is matched against: a list of thousands held the in-process search.
  if (names.length > MAX_FILE_TYPES) throw new ToolError('VALIDATION_FAILED', `file_type: at most ${MAX_FILE_TYPES} languages or extensions`);
  const globs = new Set<string>();
  for (const raw of names) {
    const known = LANGUAGES[raw.toLowerCase()];
    if (known) {
      for (const g of known) globs.add(g);
      continue;
    }
    const ext = raw.startsWith('*.') ? raw.slice(2) : raw.startsWith('.') ? raw.slice(1) : raw;
    if (!SAFE_EXTENSION.test(ext)) {
      throw new ToolError(
        'VALIDATION_FAILED',
        `file_type: "${raw}" is not a language or file extension (examples: "java", "ts", ".py", "all")`,
      );
    }
    globs.add(`*.${ext}`);
  }
  return [...globs];
}

/** Human form of the file type for the result header ('java', 'ts, tsx'); undefined for all files. */
export function describeFileType(fileType: string): string | undefined {
  return fileTypeGlobs(fileType) === undefined ? undefined : fileType.trim();
}
