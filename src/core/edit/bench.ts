/**
 * A by-hand timing of the whole apply path (match + apply + patch) on a big file, not a unit test:
 * timings belong on a quiet machine, not in CI. Run:
 *   npx tsx -e "import { measureEditPath } from './src/core/edit/bench'; console.log(measureEditPath())"
 */
import { performance } from 'node:perf_hooks';
import { applySearchReplace } from './apply';
import { structuredPatchOf } from './patch';

export interface EditTiming {
  readonly lines: number;
  readonly variant: 'exact' | 'whitespace' | 'indentation' | 'not-found';
  readonly ms: number;
}

function syntheticFile(lines: number, eol: string): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    out.push(i % 10 === 0 ? `function f${i}(a, b) {` : i % 10 === 9 ? '}' : `    const v${i} = compute(a, b, ${i}); // step ${i}`);
  }
  return out.join(eol) + eol;
}

/** Best of `runs` timings of one edit near the end of a `lines`-line file, per matching rung. */
export function measureEditPath(lines = 20_000, runs = 5): EditTiming[] {
  const lf = syntheticFile(lines, '\n');
  const crlf = syntheticFile(lines, '\r\n');
  const n = lines - 15;
  const target = `    const v${n} = compute(a, b, ${n}); // step ${n}\n    const v${n + 1} = compute(a, b, ${n + 1}); // step ${n + 1}\n`;
  const cases: { variant: EditTiming['variant']; text: string; search: string }[] = [
    { variant: 'exact', text: lf, search: target },
    { variant: 'whitespace', text: crlf, search: target },
    { variant: 'indentation', text: lf, search: target.replace(/^ {4}/gm, '') },
    { variant: 'not-found', text: lf, search: target.replace('compute', 'computed') },
  ];
  return cases.map(({ variant, text, search }) => {
    let best = Infinity;
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      try {
        const res = applySearchReplace(text, search, search.replace(/step/g, 'STEP'));
        structuredPatchOf(text, res.newText);
      } catch {
        // not-found: the error (with its closest region) is the result being timed
      }
      best = Math.min(best, performance.now() - t0);
    }
    return { lines, variant, ms: Math.round(best * 100) / 100 };
  });
}
