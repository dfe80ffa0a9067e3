import type { ToolDefinition } from '../../tools/tool';
import { callChainTool } from './callChain';
import { readClassTool } from './readClass';
import { readMethodTool } from './readMethod';

/** The code-intelligence tools, for the registry: read_class, read_method, call_chain. */
export const CODE_TOOLS: readonly ToolDefinition[] = [readClassTool, readMethodTool, callChainTool];

export { callChainTool, readClassTool, readMethodTool };
export { codeIntelFor, configureCodeIndexes, dropCodeIntel, peekCodeIntel, readyCodeIntel, type CodeIndexSettings, type CodeIntel } from './shared';
