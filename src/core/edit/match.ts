/**
 * Where a search text lands in a file. A ladder of ever looser comparisons, each of which must find
 * exactly one place: two places at a rung is an error (never a silent first pick), none sends the
 * search one rung down. Looser rungs only forgive what an agent typically gets wrong without meaning
 * anything by it: line endings, trailing blanks, indentation.
 */
import type { IndentShift, MatchOutcome, MatchStrategy, TextRange } from './types';
import { findClosest } from './closest';
import { indentShift } from './indent';
import { isBlank, stripTrailingBlanks, trimBlanks } from './blanks';
import { endsWithEol } from './eol';
import { floorIndex, indexLines, lineNumberAt, splitSearchLines, type LineIndex } from './lines';

/** At most this many places are listed in an ambiguity message (all are counted). */
export const MAX_LISTED = 10;

const BOM = '\ufeff';

interface Span {
  readonly start: number;
  readonly end: number;
}

interface TierResult {
  readonly count: number;
  /** The first MAX_LISTED places found. */
  readonly spans: readonly Span[];
  readonly indent?: IndentShift;
}

const NONE: TierResult = { count: 0, spans: [] };

/** Every occurrence in `haystack`, overlapping ones included: "aa" is in "aaa" twice, which is ambiguous. */
function occurrences(haystack: string, needle: string): { count: number; starts: number[] } {
  const starts: number[] = [];
  let count = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    if (count++ < MAX_LISTED) starts.push(at);
  }
  return { count, starts };
}

function exactTier(body: string, search: string): TierResult {
  const { count, starts } = occurrences(body, search);
  return { count, spans: starts.map((s) => ({ start: s, end: s + search.length })) };
}

/**
 * The file as the looser rungs see it, each view built at most once per findMatch (the replacement's
 * climb for "already applied" reuses them): its lines, its normalized form, its indentation-free keys.
 */
class Haystack {
  private indexMemo?: LineIndex;
  private normMemo?: { text: string; starts: number[]; lens: number[] };
  private keysMemo?: string[];

  constructor(readonly body: string) {}

  get index(): LineIndex {
    return (this.indexMemo ??= indexLines(this.body));
  }

  /** LF endings, trailing blanks cut; `starts`/`lens` give each line's place and length in it. */
  get normalized(): { text: string; starts: number[]; lens: number[] } {
    if (this.normMemo) return this.normMemo;
    const { lines } = this.index;
    const starts: number[] = [];
    const lens: number[] = [];
    const chunks: string[] = [];
    const lastHasEol = endsWithEol(this.body);
    let len = 0;
    for (let i = 0; i < lines.length; i++) {
      const stripped = stripTrailingBlanks(lines[i]);
      const eol = i < lines.length - 1 || lastHasEol ? '\n' : '';
      starts.push(len);
      lens.push(stripped.length);
      chunks.push(stripped, eol);
      len += stripped.length + eol.length;
    }
    return (this.normMemo = { text: chunks.join(''), starts, lens });
  }

  get keys(): string[] {
    return (this.keysMemo ??= this.index.lines.map(trimBlanks));
  }
}

/**
 * Line endings and trailing blanks ignored: both texts are normalized (LF, trailing blanks cut) and
 * searched as strings, so a search may still start or end mid-line; matches map back to the
 * original through the per-line start offsets, since normalizing only ever shortens a line's tail.
 */
function whitespaceTier(hay: Haystack, search: string): TierResult {
  const normSearch = search.split(/\r\n|\n|\r/).map(stripTrailingBlanks).join('\n');
  if (normSearch.trim() === '') return NONE;
  const norm = hay.normalized;
  const { starts: lineStarts } = hay.index;
  const { count, starts } = occurrences(norm.text, normSearch);
  const toOriginal = (k: number, isEnd: boolean): number => {
    const line = floorIndex(norm.starts, k);
    const col = k - norm.starts[line];
    // An end on the '\n' of a line takes the whole original terminator (and the blanks before it).
    if (isEnd && col === norm.lens[line]) return lineStarts[line + 1] ?? hay.body.length;
    return lineStarts[line] + col + (isEnd ? 1 : 0);
  };
  const spans = starts.map((s) => ({ start: toOriginal(s, false), end: toOriginal(s + normSearch.length - 1, true) }));
  return { count, spans };
}

/** Whole lines compared with indentation and trailing blanks ignored; the match carries the shift to re-indent with. */
function indentationTier(hay: Haystack, search: string): TierResult {
  const searchLines = splitSearchLines(search);
  const keys = searchLines.map(trimBlanks);
  const anchor = keys.findIndex((k) => k !== '');
  if (anchor < 0) return NONE;
  const fileKeys = hay.keys;
  const { starts, ends, lines } = hay.index;
  const m = keys.length;
  const spans: Span[] = [];
  let count = 0;
  let firstAt = -1;
  for (let i = 0; i + m <= fileKeys.length; i++) {
    if (fileKeys[i + anchor] !== keys[anchor]) continue;
    let same = true;
    for (let j = 0; j < m && same; j++) same = fileKeys[i + j] === keys[j];
    if (!same) continue;
    if (count++ === 0) firstAt = i;
    if (spans.length < MAX_LISTED) {
      // A search ending in a terminator takes the last line's terminator too.
      const end = endsWithEol(search) ? (starts[i + m] ?? hay.body.length) : ends[i + m - 1];
      spans.push({ start: starts[i], end });
    }
  }
  if (count !== 1) return { count, spans };
  return { count, spans, indent: indentShift(searchLines, lines.slice(firstAt, firstAt + m)) };
}

type Ladder = { strategy: MatchStrategy; result: TierResult } | undefined;

/** The first rung that finds anything, or undefined when none does. */
function climb(hay: Haystack, search: string): Ladder {
  const exact = exactTier(hay.body, search);
  if (exact.count > 0) return { strategy: 'exact', result: exact };
  const whitespace = whitespaceTier(hay, search);
  if (whitespace.count > 0) return { strategy: 'whitespace', result: whitespace };
  const indentation = indentationTier(hay, search);
  if (indentation.count > 0) return { strategy: 'indentation', result: indentation };
  return undefined;
}

/**
 * Whether finding `replace` says anything: a short replacement ("y", "0") turns up by coincidence,
 * and a false "already applied" would send the agent away from a real mismatch.
 */
function isDistinctive(replace: string): boolean {
  const solid = replace.replace(/\s+/g, '');
  return solid.length >= 6 || splitSearchLines(replace).filter((l) => !isBlank(l)).length >= 2;
}

/**
 * Finds the one place `search` means in `text`. When it is nowhere but `replace` (if given) is, the
 * outcome says the change looks applied already; otherwise a not-found outcome carries the closest
 * region. A leading BOM is never part of a match, so an edit can't delete it. Offsets are into
 * `text`; line numbers are 1-based.
 */
export function findMatch(text: string, search: string, replace?: string): MatchOutcome {
  if (search === '') throw new RangeError('findMatch: empty search (creating a file is decided before matching)');
  const bom = text.startsWith(BOM) ? BOM.length : 0;
  const body = bom ? text.slice(bom) : text;
  const hay = new Haystack(body);
  // Line numbers by scanning, not from the index: an exact match then never needs the index at all.
  const span = (s: Span) => {
    const startLine = lineNumberAt(body, s.start);
    return { startLine, endLine: s.end > s.start ? lineNumberAt(body, s.end - 1) : startLine };
  };
  const range = (s: Span): TextRange => ({ start: s.start + bom, end: s.end + bom, ...span(s) });

  const found = climb(hay, search);
  if (found) {
    const { strategy, result } = found;
    if (result.count > 1) {
      const lines = result.spans.map((s) => lineNumberAt(body, s.start));
      return { kind: 'ambiguous', strategy, count: result.count, lines };
    }
    const match = { kind: 'match', strategy, range: range(result.spans[0]) } as const;
    return result.indent ? { ...match, indent: result.indent } : match;
  }

  if (replace !== undefined && replace !== search && isDistinctive(replace)) {
    const done = climb(hay, replace);
    if (done && done.result.count === 1) {
      return { kind: 'already-applied', strategy: done.strategy, range: range(done.result.spans[0]) };
    }
  }
  const lineCount = hay.index.lines.length;
  const closest = findClosest(hay.index.lines, search, hay.keys);
  return closest ? { kind: 'not-found', lineCount, closest } : { kind: 'not-found', lineCount };
}
