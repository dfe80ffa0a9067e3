/**
 * Which files autoApprove writes without asking: the project's own source code and prose, which
 * runs only when the developer chooses to run the project. Every other file asks even in
 * autoApprove (the headless host, with nobody to ask, refuses it): configuration and build
 * definitions that editor extensions and language servers load or run by themselves when a file
 * is saved or a folder opens (test runners' and bundlers' `*.config.*` files, `pyproject.toml`
 * `addopts`, Gradle and sbt builds, `build.rs`, `CMakeLists.txt`, `Package.swift`, dotfiles).
 *
 * An allow-list on purpose: a new tool's configuration file is unknown to any deny-list, but it is
 * rarely written in a programming language's source extension, and those that are (the names
 * below) follow a handful of naming patterns.
 */
import { GlobSet } from '../workspace/globSet';

/** Extensions of programming languages' source files, and of prose and notebooks. */
const SOURCE_EXTENSIONS = new Set([
  // JVM, .NET, systems languages
  'java', 'kt', 'scala', 'groovy', 'clj', 'cljs', 'cljc', 'cs', 'fs', 'vb', 'go', 'rs', 'c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'hh', 'hxx', 'm', 'mm', 'swift', 'zig', 'd',
  // scripting and web
  'ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'vue', 'svelte', 'astro', 'html', 'htm', 'css', 'scss', 'sass', 'less',
  'py', 'pyi', 'rb', 'php', 'pl', 'pm', 'lua', 'dart', 'ex', 'exs', 'erl', 'hrl', 'hs', 'ml', 'mli', 'r', 'jl', 'elm',
  'sh', 'bash', 'zsh', 'fish', 'ps1', 'psm1',
  // schemas and queries that are compiled or sent, not loaded by tools
  'sql', 'proto', 'graphql', 'gql',
  // prose, logs, data tables and notebooks
  'md', 'mdx', 'markdown', 'txt', 'rst', 'adoc', 'asciidoc', 'org', 'tex', 'log', 'csv', 'tsv', 'ipynb',
]);

/**
 * Source-extension files that tools load by themselves: build scripts a language server runs when
 * it imports the project, and configuration in a programming language.
 */
export const TOOL_FILE_GLOBS: readonly string[] = [
  // `vite.config.ts`, `jest.config.js`, `vitest.workspace.mjs`, `babel.config.cjs`; dotfiles (`.mocharc.js`)
  '**/*.config.*',
  '**/*.workspace.*',
  '**/{gulpfile,gruntfile,jakefile}.*',
  '**/gulpfile.js/**',
  '**/.*',
  '**/.*/**',
  '**/*.conf.{js,cjs,mjs,ts,cts,mts}',
  '**/gatsby-*.*',
  // build logic Gradle and sbt compile and run while importing the project
  '**/buildSrc/**',
  '**/build-logic/**',
  '**/gradle/**',
  '**/project/*.{scala,java,sbt}',
  '**/project/{src,project}/**',
  '**/xmake.lua',
  // installed packages and installs: code other code loads, and what pip or Bundler fetch
  '**/vendor/**',
  '**/requirements*.txt',
  '**/constraints*.txt',
  '**/gems.rb',
  // documentation builds an extension runs by itself (Sphinx), and instructions other agents obey
  '**/conf.py',
  '**/{AGENTS,CLAUDE,GEMINI}.md',
  '**/build.rs',
  '**/build/*.rs',
  '**/build.zig',
  '**/config/*.exs',
  '**/renv/**',
  // a virtualenv's activation scripts, whatever the folder is called (shells and the Python extension run them)
  '**/{bin,Scripts}/{activate,Activate}*',
  '**/CMakeLists.txt',
  '**/Package{,@swift-*}.swift',
  '**/mill-build/**',
  '**/mix.exs',
  '**/Setup.{hs,lhs}',
  '**/project.clj',
  // Python files the interpreter or pytest imports by themselves
  '**/{sitecustomize,usercustomize}.py',
  // Added after the list's first 33 globs were recorded (test/security/policyGlobs.test.ts):
  // a conda environment's activation hooks (run in every terminal the Python extension opens)
  '**/etc/conda/{activate,deactivate}.d/**',
  // other coding agents' instruction files, read like AGENTS.md
  '**/{CLAUDE.local,AGENTS.override,AGENT,QWEN,WARP,CRUSH}.md',
];
const TOOL_FILES = new GlobSet(TOOL_FILE_GLOBS);

export type UnaskedWrite = { readonly unasked: true } | { readonly unasked: false; readonly why: string };

/** Whether autoApprove writes the file at every one of these project-relative names without asking. */
export function unaskedWrite(...rels: string[]): UnaskedWrite {
  for (const rel of rels) {
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    const dot = name.lastIndexOf('.');
    const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
    if (!SOURCE_EXTENSIONS.has(extension)) return { unasked: false, why: `${rel} is not a source file (autoApprove writes only source code and prose without asking)` };
    const rule = TOOL_FILES.match(rel);
    if (rule !== undefined) return { unasked: false, why: `${rel} is read by tools by themselves (it matches "${rule}")` };
  }
  return { unasked: true };
}
