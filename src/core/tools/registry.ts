import type { ToolDefinition } from './tool';
import { readFileTool } from './readFile';
import { grepFileTool } from './grepFile';
import { textSearchTool } from './textSearch';

/** Every tool the extension answers. One file per tool; adding one is adding a line here. */
export const ALL_TOOLS: readonly ToolDefinition[] = [readFileTool, grepFileTool, textSearchTool];
