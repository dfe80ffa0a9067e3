/** The handle VS Code gives a webview script; it may be acquired only once, so it lives here. */
import type { ContextChip, FromWebview } from '../src/extension/chat/contract';

/**
 * What the webview keeps across being hidden (a glance at the Explorer, a collapsed view) and a
 * window reload: VS Code stores it with the view, since a hidden webview's page is thrown away.
 */
export interface SavedState {
  /** The half-typed message. */
  readonly draft?: string;
  /** The attachments waiting to go with it; added again through the extension (and its checks) after a reload. */
  readonly chips?: readonly Pick<ContextChip, 'kind' | 'path' | 'label' | 'startLine' | 'endLine'>[];
  /** Where the developer was reading, when not at the latest output. */
  readonly scrollTop?: number;
}

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();

export function post(message: FromWebview): void {
  api.postMessage(message);
}

/** The state saved last; anything of the wrong shape is left out (it is read back from storage). */
export function savedState(): SavedState {
  const s = api.getState() as Record<string, unknown> | undefined;
  if (!s || typeof s !== 'object') return {};
  const chips = Array.isArray(s.chips)
    ? (s.chips as Record<string, unknown>[]).filter(
        (c) => c && (c.kind === 'file' || c.kind === 'selection' || c.kind === 'symbol') && typeof c.path === 'string' && typeof c.label === 'string',
      )
    : undefined;
  return {
    ...(typeof s.draft === 'string' ? { draft: s.draft } : {}),
    ...(chips?.length ? { chips: chips as unknown as SavedState['chips'] } : {}),
    ...(typeof s.scrollTop === 'number' ? { scrollTop: s.scrollTop } : {}),
  };
}

/** Merges `part` into the saved state. */
export function saveState(part: Partial<Record<keyof SavedState, SavedState[keyof SavedState] | undefined>>): void {
  const next: Record<string, unknown> = { ...savedState(), ...part };
  for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
  api.setState(next);
}
