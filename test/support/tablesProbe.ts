import { CodeIndex } from '../../src/core/code/index/codeIndex';

/**
 * A code index that notes, each time its lookup tables are asked for in slices, how many steps
 * that took and whether the tables so made are the ones lookups use afterwards (asked again at
 * once, they are there: no step). Tests of the answers that make the tables in slices use it.
 */
export class TablesProbe extends CodeIndex {
  readonly runs: { steps: number; installed: boolean }[] = [];

  override *lookupTablesSliced(): ReturnType<CodeIndex['lookupTablesSliced']> {
    let steps = 0;
    for (const step of super.lookupTablesSliced()) {
      steps++;
      yield step;
    }
    let again = 0;
    for (const _ of super.lookupTablesSliced()) again++;
    this.runs.push({ steps, installed: again === 0 });
  }
}
