/**
 * Where a search text that matched nowhere was probably meant to land, so the failure message can
 * show the agent the file's actual lines. Runs only on failure, but must still be fast on big files:
 * a few candidate windows are picked cheaply and scored precisely (similarity.ts), and only the best is diffed (diffSnippet.ts).
 */
import type { ClosestRegion } from './types';
import { trimBlanks } from './blanks';
import { diffSnippet } from './diffSnippet';
import { splitSearchLines } from './lines';
import type { Sliced } from '../code/index/slices';
import { bestWindowsSliced, lineScoresSliced, similarity } from './similarity';

const MIN_SIMILARITY = 0.3;
/** Minified files have megabyte lines: compared text is capped. */
const MAX_COMPARED_CHARS = 20_000;

/** The region of `fileLines` (whose indentation-free keys are `fileKeys`) most like `search`, or undefined when nothing is even roughly alike; yields every few thousand lines. */
export function* findClosestSliced(fileLines: readonly string[], search: string, fileKeys: readonly string[]): Sliced<ClosestRegion | undefined> {
  const searchLines = splitSearchLines(search);
  const searchKeys = searchLines.map(trimBlanks);
  if (fileLines.length === 0 || searchKeys.every((k) => k === '')) return undefined;
  const height = Math.min(searchLines.length, fileLines.length);
  const scores = yield* lineScoresSliced(fileKeys, searchKeys);
  const fullSearch = searchKeys.join('\n');
  const searchText = fullSearch.slice(0, MAX_COMPARED_CHARS);
  // A capped search is compared with windows capped alike; otherwise windows are capped only
  // generously (a minified line can be a megabyte), so that both sides stay comparable.
  const windowCap = searchText.length < fullSearch.length ? MAX_COMPARED_CHARS : 2 * searchText.length + 200;

  let best: { start: number; sim: number } | undefined;
  for (const start of yield* bestWindowsSliced(scores, height)) {
    const window = fileKeys.slice(start, start + height).join('\n').slice(0, windowCap);
    const sim = similarity(searchText, window);
    if (!best || sim > best.sim) best = { start, sim };
    yield;
  }
  if (!best || best.sim < MIN_SIMILARITY) return undefined;
  const region = fileLines.slice(best.start, best.start + height);
  return {
    startLine: best.start + 1,
    endLine: best.start + height,
    similarity: Math.round(best.sim * 100) / 100,
    diff: diffSnippet(searchLines, region),
  };
}
