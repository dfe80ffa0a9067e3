/**
 * Data shapes of the edit engine. Everything here is plain data so results can be logged, compared
 * in tests and turned into TOOL_RESULT payloads without further translation.
 */

/** Which rung of the matching ladder found the text (see match.ts). */
export type MatchStrategy = 'exact' | 'whitespace' | 'indentation';

/** A region of a text: UTF-16 offsets [start, end) and the 1-based, inclusive lines it touches. */
export interface TextRange {
  readonly start: number;
  readonly end: number;
  readonly startLine: number;
  readonly endLine: number;
}

/** Lines of a text, 1-based and inclusive. */
export interface LineRange {
  readonly startLine: number;
  readonly endLine: number;
}

/**
 * How to move the replacement's indentation onto the indentation actually found in the file. `from`
 * is the leading whitespace of the search's first non-blank line, `to` that of the file line it
 * matched; the styles say which characters each side indents with.
 */
export interface IndentShift {
  readonly from: string;
  readonly to: string;
  readonly fileStyle: IndentStyle;
  /** Width of one indentation level in the file, in columns (used only when converting styles). */
  readonly fileUnit: number;
}

export type IndentStyle = 'tabs' | 'spaces' | 'unknown';

/** The part of the file most like a search text that matched nowhere. */
export interface ClosestRegion extends LineRange {
  /** 0..1, bigram (Dice) similarity between the search text and these lines, whitespace-trimmed. */
  readonly similarity: number;
  /** Unified-diff-like lines: ' ' same, '-' only in the search text, '+' only in the file; '…' marks a cut. */
  readonly diff: readonly string[];
}

export type MatchOutcome =
  | { readonly kind: 'match'; readonly strategy: MatchStrategy; readonly range: TextRange; readonly indent?: IndentShift }
  | { readonly kind: 'ambiguous'; readonly strategy: MatchStrategy; readonly count: number; readonly lines: readonly number[] }
  /** The search text is nowhere, but the replacement is, exactly once: the change looks done already. */
  | { readonly kind: 'already-applied'; readonly strategy: MatchStrategy; readonly range: TextRange }
  | { readonly kind: 'not-found'; readonly lineCount: number; readonly closest?: ClosestRegion };

/** A search/replace that changed the text. */
interface Applied {
  readonly kind: 'applied';
  readonly newText: string;
  readonly strategy: MatchStrategy;
  /** Where the search text was found in the old text. */
  readonly oldRange: TextRange;
  /** Lines of the new text holding the inserted text (the line of the cut when nothing was inserted). */
  readonly newRange: LineRange;
}

/** A search/replace that found its replacement already in place: the text is returned unchanged. */
interface AlreadyApplied {
  readonly kind: 'already-applied';
  readonly newText: string;
  readonly strategy: MatchStrategy;
  /** Where the replacement text already is. */
  readonly range: TextRange;
}

export type ApplyResult = Applied | AlreadyApplied;

/** One edit of the Edit / MultiEdit tools (docs/protocol.md §5.10), with their wire names. */
export interface EditSpec {
  readonly old_string: string;
  readonly new_string: string;
  readonly replace_all?: boolean;
}

/** What one edit of a successful MultiEdit did (line numbers in the text right after that edit). */
export interface EditReport {
  /** 1-based, as `editIndex` in docs/protocol.md §5.10. */
  readonly editIndex: number;
  readonly occurrences: number;
  readonly strategy: MatchStrategy;
  readonly newRange: LineRange;
}

export interface EditsResult {
  readonly newText: string;
  readonly edits: readonly EditReport[];
}

/** A hunk of `structuredPatch` (docs/protocol.md §7.4): unified-diff lines without terminators, prefixed ' ', '-' or '+'. */
export interface Hunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  readonly lines: readonly string[];
}

/** How the texts of a message name the two strings: apply_change and Edit call them differently. */
export interface EditNames {
  /** Project-relative path shown to the agent. */
  readonly path: string;
  readonly search: string;
  readonly replace: string;
}

/** A notebook cell operation, so a host with a notebook API can apply it to an open notebook. */
export interface NotebookCellEdit {
  readonly mode: 'replace' | 'insert' | 'delete';
  readonly index: number;
  readonly source: string;
  readonly cellType: 'code' | 'markdown';
  readonly language: string;
}
