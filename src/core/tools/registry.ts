import type { ToolDefinition } from './tool';
import { readFileTool } from './readFile';
import { grepFileTool } from './grepFile';
import { textSearchTool } from './textSearch';
import { applyChangeTool } from './applyChange';
import { replaceTool } from './replace';
import { editTool } from './edit';
import { multiEditTool } from './multiEdit';
import { notebookEditCellTool } from './notebookEditCell';
import { readClassTool } from './readClass';
import { readMethodTool } from './readMethod';
import { callChainTool } from './callChain';
import { getDiagnosticsTool } from './getDiagnostics';

/** Every tool the extension answers. One file per tool; adding one is adding a line here. */
export const ALL_TOOLS: readonly ToolDefinition[] = [
  readFileTool,
  grepFileTool,
  textSearchTool,
  applyChangeTool,
  replaceTool,
  editTool,
  multiEditTool,
  notebookEditCellTool,
  readClassTool,
  readMethodTool,
  callChainTool,
  getDiagnosticsTool,
];
