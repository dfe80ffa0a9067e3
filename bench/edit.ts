// apply_change's engine on a 20,000-line file: match (each rung of the ladder), apply, and the
// structuredPatch, in process, no UI and no disk (what runs between reading the text and the
// approval diff). Medians over repeated runs.
import { applySearchReplace } from '../src/core/edit/apply';
import { structuredPatchOf } from '../src/core/edit/patch';
import { median, ms, now, quantile, type Row } from './lib';

const LINES = 20_000;
const RUNS = 21;

function syntheticFile(lines: number, eol: string): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    out.push(i % 10 === 0 ? `function f${i}(a, b) {` : i % 10 === 9 ? '}' : `    const v${i} = compute(a, b, ${i}); // step ${i}`);
  }
  return out.join(eol) + eol;
}

export function benchEdit(): Row[] {
  const lf = syntheticFile(LINES, '\n');
  const crlf = syntheticFile(LINES, '\r\n');
  const n = LINES - 15;
  const target = `    const v${n} = compute(a, b, ${n}); // step ${n}\n    const v${n + 1} = compute(a, b, ${n + 1}); // step ${n + 1}\n`;
  const cases = [
    { variant: 'exact', text: lf, search: target, fails: false },
    { variant: 'whitespace (CRLF file, LF search)', text: crlf, search: target, fails: false },
    { variant: 'indentation', text: lf, search: target.replace(/^ {4}/gm, ''), fails: false },
    { variant: 'not found (closest region reported)', text: lf, search: target.replace('compute', 'computed'), fails: true },
  ];
  return cases.map(({ variant, text, search, fails }) => {
    const lat: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const t0 = now();
      try {
        const res = applySearchReplace(text, search, search.replace(/step/g, 'STEP'));
        structuredPatchOf(text, res.newText);
        if (fails) throw new Error('expected no match');
      } catch (e) {
        if (!fails) throw e;
      }
      lat.push(now() - t0);
    }
    const p50 = median(lat);
    return {
      figure: `apply_change engine, ${LINES.toLocaleString('en')}-line file: ${variant}`,
      ours: ms(p50),
      comparison: '—',
      ratio: '—',
      target: '< 50 ms',
      pass: p50 < 50,
      note: `median of ${RUNS} (first run included); max ${ms(quantile(lat, 1))}; match + apply + structuredPatch`,
      data: { lat },
    };
  });
}
