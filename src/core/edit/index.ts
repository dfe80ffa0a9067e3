/** The edit engine: pure text in, text or a precise ToolError out. No I/O, no vscode. */
export { findMatch } from './match';
export { applyChangeNames, applyEdit, applyEdits, applyEditsSliced, applySearchReplace, applySearchReplaceSliced, editNames, planCreate } from './apply';
export { EDIT_LIMITS, runEditSliced } from './budget';
export { patchCounts, structuredPatchOf } from './patch';
export type * from './types';
