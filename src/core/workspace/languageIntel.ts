/**
 * What an editor's language servers know, in plain data (no editor types): document and workspace
 * symbols and the call hierarchy. Optional on a Workspace: without it, or when it answers nothing,
 * the code tools use the extension's own parser. Positions are 0-based (line and UTF-16 character),
 * as in the Language Server Protocol; paths are absolute. Every method may reject (no server, a
 * server that did not answer in time): callers fall back to the parser then.
 */

export interface IntelPosition {
  readonly line: number;
  readonly character: number;
}

export interface IntelRange {
  readonly start: IntelPosition;
  readonly end: IntelPosition;
}

/** The LSP SymbolKind, by name. */
export type IntelSymbolKind =
  | 'File' | 'Module' | 'Namespace' | 'Package' | 'Class' | 'Method' | 'Property' | 'Field' | 'Constructor'
  | 'Enum' | 'Interface' | 'Function' | 'Variable' | 'Constant' | 'String' | 'Number' | 'Boolean' | 'Array'
  | 'Object' | 'Key' | 'Null' | 'EnumMember' | 'Struct' | 'Event' | 'Operator' | 'TypeParameter';

/** A document symbol: one declaration and the declarations inside it. */
export interface IntelSymbol {
  readonly name: string;
  readonly kind: IntelSymbolKind;
  /** The server's extra text (often a signature or a type); may be empty. */
  readonly detail?: string;
  /** The whole declaration. */
  readonly range: IntelRange;
  /** The name. */
  readonly selectionRange: IntelRange;
  readonly children: readonly IntelSymbol[];
}

/** A workspace symbol: where a declaration is. */
export interface IntelSymbolLocation {
  readonly name: string;
  readonly kind: IntelSymbolKind;
  readonly containerName?: string;
  readonly path: string;
  readonly range: IntelRange;
}

/** A call hierarchy item. Pass the very object back to `incomingCalls` / `outgoingCalls`. */
export interface IntelCallItem {
  readonly name: string;
  readonly kind: IntelSymbolKind;
  /** The container (class) name for most servers. */
  readonly detail?: string;
  readonly path: string;
  readonly range: IntelRange;
  readonly selectionRange: IntelRange;
}

/** One edge: the other end, and the ranges of the calls (in the caller's file). */
export interface IntelCall {
  readonly item: IntelCallItem;
  readonly fromRanges: readonly IntelRange[];
}

export interface LanguageIntel {
  /** Which server answers, when it is not the editor's own (shown with its answers). */
  readonly serverName?: string;
  /** Declarations matching `query` across the workspace (servers match loosely: filter by name). */
  workspaceSymbols(query: string): Promise<readonly IntelSymbolLocation[]>;
  /** The file's symbol tree; empty when no server knows the file's language. */
  documentSymbols(absPath: string): Promise<readonly IntelSymbol[]>;
  /** Call hierarchy items at a position (usually one). */
  prepareCallHierarchy(absPath: string, position: IntelPosition): Promise<readonly IntelCallItem[]>;
  /** Callers of the item; `fromRanges` are in each caller's file. */
  incomingCalls(item: IntelCallItem): Promise<readonly IntelCall[]>;
  /** Callees of the item; `fromRanges` are in the item's own file. */
  outgoingCalls(item: IntelCallItem): Promise<readonly IntelCall[]>;
}
