import type { ExtractMode } from '../languages/registry';
import { closeSharedParsePools, NotParsedHere, parseBounded } from '../index/offThreadParse';
import type { PackedJson } from '../packedSymbols';
import { codeIndexSettings } from './state';

/**
 * The parses made for answers before the index is built (quickLookup.ts, neededFilesIndex.ts):
 * anything but a small file in a parse worker (index/offThreadParse.ts), with the same packed
 * symbols the index stores, so the answers are the index's. A large file no worker can take throws
 * NotParsedHere: the caller gives the question to the index instead.
 */

export { NotParsedHere };

/** Closes the shared parse workers now (tests). */
export const closeColdParsePool = closeSharedParsePools;

/** The packed symbols of `text` (the file `rel`) parsed in `mode`; see `parseBounded`. */
export function packedAlone(rel: string, text: string, mode: ExtractMode, signal?: AbortSignal): Promise<PackedJson | undefined> {
  const { coldWorkerScript, log } = codeIndexSettings();
  return parseBounded(rel, text, mode, { ...(coldWorkerScript ? { script: coldWorkerScript } : {}), ...(signal ? { signal } : {}), ...(log ? { log } : {}) });
}
