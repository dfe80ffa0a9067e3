// The layering of the source, checked by `npm run lint` (dependency-cruiser reads the real imports,
// type-only ones included). docs/architecture.md draws the same map.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle ties two rooms into one: move the shared piece down a level.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'Folders are rooms: if two import each other (types included), they are one room; move the shared piece down.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-is-host-neutral',
      severity: 'error',
      comment: 'src/core runs in VS Code, the headless host, tests and benchmarks: it imports neither vscode (not even a type) nor a host.',
      from: { path: '^src/core/' },
      to: { path: ['^vscode$', '^node_modules/@types/vscode/', '^src/(extension|node|devBackend)/'] },
    },
    // Code intelligence in layers, each importing only those below it: the shared types at the
    // root of src/core/code, then parse/, java/, languages/, index/, lsp/, and intel/ on top.
    {
      name: 'code-root-is-the-bottom',
      severity: 'error',
      comment: 'The files at the root of src/core/code (the symbol model, entries, the language table) are what every layer shares.',
      from: { path: '^src/core/code/[^/]+$' },
      to: { path: '^src/core/code/[^/]+/' },
    },
    {
      name: 'code-parse-below-java',
      severity: 'error',
      comment: 'parse/ is tree-sitter and its node helpers: it knows no language extractor, index or answer.',
      from: { path: '^src/core/code/parse/' },
      to: { path: '^src/core/code/(java|languages|index|lsp|intel)/' },
    },
    {
      name: 'code-java-below-languages',
      severity: 'error',
      comment: 'java/ types Java against an index it sees only as JavaTypeIndex (javaTypes.ts).',
      from: { path: '^src/core/code/java/' },
      to: { path: '^src/core/code/(languages|index|lsp|intel)/' },
    },
    {
      name: 'code-languages-below-index',
      severity: 'error',
      comment: 'languages/ turns one file into FileSymbols; the index runs the extractors, not the other way.',
      from: { path: '^src/core/code/languages/' },
      to: { path: '^src/core/code/(index|lsp|intel)/' },
    },
    {
      name: 'code-index-below-answers',
      severity: 'error',
      comment: 'index/ keeps the symbols and the call graph; the language server and the tools ask it, it asks neither.',
      from: { path: '^src/core/code/index/' },
      to: { path: '^src/core/code/(lsp|intel)/' },
    },
    {
      name: 'code-lsp-below-intel',
      severity: 'error',
      comment: 'lsp/ answers from the language server; intel/ chooses between it and the index.',
      from: { path: '^src/core/code/lsp/' },
      to: { path: '^src/core/code/intel/' },
    },
    {
      name: 'code-ts-service-stands-apart',
      severity: 'error',
      comment: 'tsService/ is a LanguageIntel over the typescript package (hosts wire it in); it knows no parser, index or answer, and they know it only as LanguageIntel.',
      from: { path: '^src/core/code/tsService/' },
      to: { path: '^src/core/code/(parse|java|languages|index|lsp|intel)/' },
    },
    {
      name: 'code-layers-do-not-import-ts-service',
      severity: 'error',
      from: { path: '^src/core/', pathNot: '^src/core/code/tsService/' },
      to: { path: '^src/core/code/tsService/' },
    },
    {
      name: 'workspace-below-policy',
      severity: 'error',
      comment: 'The access policy judges paths of a Workspace; the Workspace interface and the glob engine it hands out know nothing of the policy.',
      from: { path: '^src/core/workspace/' },
      to: { path: '^src/core/policy/' },
    },
    {
      name: 'glob-engine-is-a-leaf',
      severity: 'error',
      comment: 'The one glob engine (src/core/glob) serves the search, the workspace and the policy: it imports none of them.',
      from: { path: '^src/core/glob/' },
      to: { path: '^src/', pathNot: '^src/core/glob/' },
    },
    {
      name: 'webview-speaks-only-its-contract',
      severity: 'error',
      comment: 'The chat webview runs in a browser sandbox; what it shares with the extension is the message contract.',
      from: { path: '^webview/' },
      to: { path: '^src/', pathNot: '^src/extension/chat/(contract|lazyContract)\\.ts$' },
    },
    {
      name: 'hosts-do-not-import-each-other',
      severity: 'error',
      from: { path: '^src/(node|devBackend)/' },
      to: { path: '^src/extension/' },
    },
    // src/extension's folders, lowest first: adapter (the core's interfaces over VS Code, settings),
    // connection, review, changes, chat; extension.ts and the command registrar at the top wire them.
    // A folder imports only from the folders below it.
    {
      name: 'extension-adapter-is-lowest',
      severity: 'error',
      from: { path: '^src/extension/adapter/' },
      to: { path: '^src/extension/', pathNot: '^src/extension/adapter/' },
    },
    {
      name: 'extension-connection-below-review',
      severity: 'error',
      from: { path: '^src/extension/connection/' },
      to: { path: '^src/extension/', pathNot: '^src/extension/(adapter|connection)/' },
    },
    {
      name: 'extension-review-below-changes',
      severity: 'error',
      from: { path: '^src/extension/review/' },
      to: { path: '^src/extension/', pathNot: '^src/extension/(adapter|connection|review)/' },
    },
    {
      name: 'extension-changes-below-chat',
      severity: 'error',
      from: { path: '^src/extension/changes/' },
      to: { path: '^src/extension/', pathNot: '^src/extension/(adapter|connection|review|changes)/' },
    },
    {
      name: 'extension-chat-below-the-entry',
      severity: 'error',
      from: { path: '^src/extension/chat/' },
      to: { path: '^src/extension/', pathNot: '^src/extension/(adapter|connection|review|changes|chat)/' },
    },
    {
      name: 'source-never-imports-tests',
      severity: 'error',
      from: { path: '^(src|webview)/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'bench-and-tests-apart',
      severity: 'error',
      comment: 'Benchmarks and tests share helpers through test/support only.',
      from: { path: '^bench/' },
      to: { path: '^test/', pathNot: '^test/support/' },
    },
    {
      name: 'tests-do-not-import-bench',
      severity: 'error',
      from: { path: '^test/' },
      to: { path: '^bench/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The build script is not a module of the product ('esbuild' would resolve to it).
    exclude: { path: '^esbuild\\.mjs$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
