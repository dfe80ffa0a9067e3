/** The edit engine: pure text in, text or a precise ToolError out. No I/O, no vscode. */
export { applyChangeNames, applyEditsSliced, applySearchReplaceSliced, planCreate } from './apply';
export { EDIT_LIMITS, runEditSliced } from './budget';
export type * from './types';
