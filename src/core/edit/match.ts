/**
 * Where a search text lands in a file. A ladder of ever looser comparisons, each of which must find
 * exactly one place: two places at a rung is an error (never a silent first pick), none sends the
 * search one rung down. Looser rungs only forgive what an agent typically gets wrong without meaning
 * anything by it: line endings, trailing blanks, indentation.
 */
import type { IndentShift, MatchOutcome, MatchStrategy, TextRange } from './types';
import type { Sliced } from '../code/index/slices';
import { runEditWhole } from './budget';
import { findClosestSliced } from './closest';
import { indentShift } from './indent';
import { isBlank, stripTrailingBlanks, trimBlanks } from './blanks';
import { endsWithEol } from './eol';
import { textOccurrences, sequenceOccurrences } from './linearSearch';
import { floorIndex, indexLinesSliced, LINES_PER_STEP, lineNumberAt, splitSearchLines, type LineIndex } from './lines';

/** At most this many places are listed in an ambiguity message (all are counted). */
const MAX_LISTED = 10;

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

/** Every occurrence, overlapping ones included: "aa" is in "aaa" twice, which is ambiguous. */
function* exactTier(body: string, search: string): Sliced<TierResult> {
  const { count, starts } = yield* textOccurrences(body, search, MAX_LISTED);
  return { count, spans: starts.map((s) => ({ start: s, end: s + search.length })) };
}

/** The file's indentation-free line keys, each also as a number (equal keys, equal numbers), for the indentation tier. */
interface LineKeys {
  readonly keys: readonly string[];
  readonly ids: Int32Array;
  readonly idOf: ReadonlyMap<string, number>;
}

/**
 * The file as the looser rungs see it, each view built at most once per findMatch (the replacement's
 * climb for "already applied" reuses them): its lines, its normalized form, its indentation-free keys.
 * Each is built by a generator that yields every few thousand lines.
 */
class Haystack {
  private indexMemo?: LineIndex;
  private normMemo?: { text: string; starts: number[]; lens: number[] };
  private keysMemo?: LineKeys;

  constructor(readonly body: string) {}

  *index(): Sliced<LineIndex> {
    if (!this.indexMemo) this.indexMemo = yield* indexLinesSliced(this.body);
    return this.indexMemo;
  }

  /** LF endings, trailing blanks cut; `starts`/`lens` give each line's place and length in it. */
  *normalized(): Sliced<{ text: string; starts: number[]; lens: number[] }> {
    if (this.normMemo) return this.normMemo;
    const { lines } = yield* this.index();
    const starts: number[] = [];
    const lens: number[] = [];
    // Joined a batch at a time: one join of millions of lines would hold the thread too long.
    const batches: string[] = [];
    let batch: string[] = [];
    const lastHasEol = endsWithEol(this.body);
    let len = 0;
    for (let i = 0; i < lines.length; i++) {
      const stripped = stripTrailingBlanks(lines[i]);
      const eol = i < lines.length - 1 || lastHasEol ? '\n' : '';
      starts.push(len);
      lens.push(stripped.length);
      batch.push(stripped, eol);
      len += stripped.length + eol.length;
      if (batch.length >= 2 * LINES_PER_STEP) {
        batches.push(batch.join(''));
        batch = [];
        yield;
      }
    }
    batches.push(batch.join(''));
    return (this.normMemo = { text: batches.join(''), starts, lens });
  }

  *keys(): Sliced<LineKeys> {
    if (this.keysMemo) return this.keysMemo;
    const { lines } = yield* this.index();
    const keys: string[] = [];
    const ids = new Int32Array(lines.length);
    const idOf = new Map<string, number>();
    for (let i = 0; i < lines.length; i++) {
      const key = trimBlanks(lines[i]);
      keys.push(key);
      let id = idOf.get(key);
      if (id === undefined) idOf.set(key, (id = idOf.size));
      ids[i] = id;
      if (i % LINES_PER_STEP === 0) yield;
    }
    return (this.keysMemo = { keys, ids, idOf });
  }
}

/**
 * Line endings and trailing blanks ignored: both texts are normalized (LF, trailing blanks cut) and
 * searched as strings, so a search may still start or end mid-line; matches map back to the
 * original through the per-line start offsets, since normalizing only ever shortens a line's tail.
 */
function* whitespaceTier(hay: Haystack, search: string): Sliced<TierResult> {
  const normSearch = search.split(/\r\n|\n|\r/).map(stripTrailingBlanks).join('\n');
  if (normSearch.trim() === '') return NONE;
  const norm = yield* hay.normalized();
  const { starts: lineStarts } = yield* hay.index();
  const { count, starts } = yield* textOccurrences(norm.text, normSearch, MAX_LISTED);
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

/**
 * Whole lines compared with indentation and trailing blanks ignored; the match carries the shift to
 * re-indent with. Lines are compared as numbers (one per distinct key), so finding every window is
 * one linear search over the file's lines.
 */
function* indentationTier(hay: Haystack, search: string): Sliced<TierResult> {
  const searchLines = splitSearchLines(search);
  const keys = searchLines.map(trimBlanks);
  if (keys.every((k) => k === '')) return NONE;
  const file = yield* hay.keys();
  const needle = new Int32Array(keys.length);
  for (let j = 0; j < keys.length; j++) {
    const id = file.idOf.get(keys[j]);
    // A line the file does not have: no window can match.
    if (id === undefined) return NONE;
    needle[j] = id;
  }
  const { starts, ends, lines } = yield* hay.index();
  const m = keys.length;
  const found = yield* sequenceOccurrences(file.ids, needle, MAX_LISTED);
  // A search ending in a terminator takes the last line's terminator too.
  const spans = found.starts.map((i) => ({ start: starts[i], end: endsWithEol(search) ? (starts[i + m] ?? hay.body.length) : ends[i + m - 1] }));
  if (found.count !== 1) return { count: found.count, spans };
  const at = found.starts[0];
  return { count: 1, spans, indent: indentShift(searchLines, lines.slice(at, at + m)) };
}

type Ladder = { strategy: MatchStrategy; result: TierResult } | undefined;

/** The first rung that finds anything, or undefined when none does. */
function* climb(hay: Haystack, search: string): Sliced<Ladder> {
  const exact = yield* exactTier(hay.body, search);
  if (exact.count > 0) return { strategy: 'exact', result: exact };
  const whitespace = yield* whitespaceTier(hay, search);
  if (whitespace.count > 0) return { strategy: 'whitespace', result: whitespace };
  const indentation = yield* indentationTier(hay, search);
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
 * `text`; line numbers are 1-based. Runs whole, under the edit deadline (budget.ts).
 */
export function findMatch(text: string, search: string, replace?: string): MatchOutcome {
  return runEditWhole(findMatchSliced(text, search, replace));
}

/** findMatch as a generator that yields every few thousand steps, to be run in slices. */
export function* findMatchSliced(text: string, search: string, replace?: string): Sliced<MatchOutcome> {
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

  const found = yield* climb(hay, search);
  if (found) {
    const { strategy, result } = found;
    if (result.count > 1) {
      const lines: number[] = [];
      // Each line number is a scan of the text before it: a pause between them.
      for (const s of result.spans) {
        lines.push(lineNumberAt(body, s.start));
        yield;
      }
      return { kind: 'ambiguous', strategy, count: result.count, lines };
    }
    const match = { kind: 'match', strategy, range: range(result.spans[0]) } as const;
    return result.indent ? { ...match, indent: result.indent } : match;
  }

  if (replace !== undefined && replace !== search && isDistinctive(replace)) {
    const done = yield* climb(hay, replace);
    if (done && done.result.count === 1) {
      return { kind: 'already-applied', strategy: done.strategy, range: range(done.result.spans[0]) };
    }
  }
  const { lines } = yield* hay.index();
  const { keys } = yield* hay.keys();
  const closest = yield* findClosestSliced(lines, search, keys);
  return closest ? { kind: 'not-found', lineCount: lines.length, closest } : { kind: 'not-found', lineCount: lines.length };
}
