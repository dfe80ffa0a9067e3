import * as l10n from '@vscode/l10n';

/**
 * The language of tool results. The agent's answers reach the developer, so results follow the
 * language the developer reads. The core translates through `@vscode/l10n`, VS Code's library for
 * code outside the extension host API, from the same bundle files as the extension
 * (l10n/bundle.l10n.<language>.json: English text → translation, `{0}`-style placeholders).
 * The language belongs to the process: each host loads one bundle at start-up.
 */
export type MessageBundle = Record<string, string>;

export type Translate = (english: string, ...args: (string | number)[]) => string;

let inUse: MessageBundle = {};

/**
 * Makes `t` answer from `bundle`; undefined means English. The extension passes the bundle VS Code
 * loaded for its display language (vscode.l10n.bundle), the headless host the one of its locale.
 */
export function useMessageBundle(bundle: MessageBundle | undefined): void {
  inUse = bundle ?? {};
  l10n.config({ contents: inUse });
}

/** The bundle in use, for a worker thread to load the same one. */
export function messageBundle(): MessageBundle {
  return inUse;
}

/** Whether the bundle in use translates `english` (a caller can then skip its English-only plurals). */
export function isTranslated(english: string): boolean {
  return typeof inUse[english] === 'string';
}

/** `english` in the language in use, its `{0}`, `{1}`… filled from `args`. */
export const t: Translate = (english, ...args) => l10n.t(english, ...args);

/** `message` in English whatever the language in use, its placeholders filled: the default of pure functions. */
export const english: Translate = (message, ...args) =>
  message.replace(/\{(\d+)\}/g, (m, i: string) => (args[Number(i)] !== undefined ? String(args[Number(i)]) : m));
