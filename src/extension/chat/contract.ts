/**
 * The one contract between the extension and the chat webview. Both sides import this module
 * (it must stay free of `vscode` and of the DOM); every message either side receives goes through
 * `parseToWebview` / `parseFromWebview`, and the types are inferred from the schemas.
 */
import * as z from 'zod';

const text = z.string();
const at = z.number();

/** The link's state as the header shows it; 'reconnecting' is shown as connecting. */
const ConnectionViewSchema = z.object({
  state: z.enum(['connected', 'connecting', 'reconnecting', 'disconnected']),
  /** The server URL when connected; the raw error otherwise (shown small, for the curious). */
  detail: text.optional(),
  /** While not connected: what is wrong and what to do, in the developer's words. */
  hint: text.optional(),
  /** When the next reconnect attempt starts (ms since the epoch): the header counts down to it. */
  retryAt: z.number().optional(),
});
export type ConnectionView = z.infer<typeof ConnectionViewSchema>;

/** A line range of a file (1-based, inclusive); absent: the whole file. */
const RangeFields = { startLine: z.number().int().min(1).max(10_000_000).optional(), endLine: z.number().int().min(1).max(10_000_000).optional() };

/** Something attached to the next message, as a chip above the message box shows it. */
const ContextChipSchema = z.object({
  id: text,
  kind: z.enum(['file', 'selection', 'symbol']),
  path: text,
  /** What the chip says: `Main.java`, `Main.java:10-20`, `Greeter.greet`. */
  label: text,
  ...RangeFields,
});
export type ContextChip = z.infer<typeof ContextChipSchema>;

/** One `@` completion: a file of the served folder or a symbol from the code index. */
const SuggestionSchema = z.object({
  kind: z.enum(['file', 'symbol']),
  label: text,
  /** The folder, or the symbol's file and line: shown dimmed. */
  detail: text,
  path: text,
  ...RangeFields,
});
export type Suggestion = z.infer<typeof SuggestionSchema>;

/** A command the backend understands, offered by the `/` menu. */
const SlashCommandSchema = z.object({ name: z.string().min(1).max(64), description: z.string().max(300) });
export type SlashCommand = z.infer<typeof SlashCommandSchema>;

/**
 * One item of the conversation. `id` is stable, so an update replaces the item in place.
 * @public Read through lazyContract.ts, which knip cannot follow.
 */
export const EntrySchema = z.discriminatedUnion('kind', [
  /** `queued`: typed while offline, sent as soon as the link is back (Stop cancels it). */
  z.object({
    kind: z.literal('user'),
    id: text,
    at,
    text,
    queued: z.boolean().optional(),
    /** What went with the message (labels only: the text the agent got is not kept in the transcript). */
    context: z.array(z.object({ path: text, label: text, ...RangeFields })).max(20).optional(),
  }),
  z.object({
    kind: z.literal('thinking'),
    id: text,
    at,
    text,
    stage: text.optional(),
    percent: z.number().optional(),
    round: z.number().optional(),
    /** False once the turn has moved on: the bar stops and the item dims. */
    active: z.boolean(),
  }),
  z.object({
    kind: z.literal('tool'),
    id: text,
    at,
    name: text,
    /** The key params, already shortened for one line. */
    summary: text,
    /** `rejected` / `cancelled`: the developer's decision (or a withdrawn call), not a failure. */
    status: z.enum(['running', 'succeeded', 'failed', 'rejected', 'cancelled']),
    /** The tool's own time; for a write, without the wait for the developer (`waitMs`). */
    ms: z.number().optional(),
    waitMs: z.number().optional(),
    /** A write that landed: its change as a compact diff (the first lines of its hunks). */
    diff: z
      .object({
        path: text,
        added: z.number(),
        removed: z.number(),
        lines: z.array(text).max(200),
        more: z.number(),
      })
      .optional(),
    output: text.optional(),
    /** What the answer says it found, in one line ("Lines 1–8 of 8"): shown on the collapsed row. */
    outcome: text.optional(),
    error: text.optional(),
    code: text.optional(),
  }),
  z.object({ kind: z.literal('answer'), id: text, at, markdown: text, done: z.boolean() }),
  z.object({ kind: z.literal('error'), id: text, at, code: text, message: text, explanation: text }),
  z.object({ kind: z.literal('notice'), id: text, at, text, tone: z.enum(['info', 'warning']) }),
]);
export type Entry = z.infer<typeof EntrySchema>;

/** A pending change from the ChangeQueue, as an approval card shows it. */
const ChangeCardSchema = z.object({
  id: text,
  toolName: text,
  relativePath: text,
  description: text.optional(),
  created: z.boolean(),
  added: z.number(),
  removed: z.number(),
  /** The backend has probably stopped waiting for the answer; approving still writes the change. */
  late: z.boolean().optional(),
  /** A question before a secret file is read, not a change yet: Allow / Refuse, no diff. */
  consent: z.boolean().optional(),
});
export type ChangeCard = z.infer<typeof ChangeCardSchema>;

/** Every UI string the webview shows, translated by the extension (vscode.l10n) and sent in `init`. */
const STRING_KEYS = [
  'title', 'connected', 'connecting', 'offline', 'retry', 'newSession', 'send', 'stop', 'placeholder',
  'inputLabel', 'empty', 'you', 'agent', 'thinking', 'round', 'running', 'succeeded', 'failed', 'rejected', 'cancelled', 'reviewed', 'moreLines', 'output',
  'copy', 'copied', 'pendingChanges', 'openDiff', 'approve', 'reject', 'created', 'late', 'consent', 'allow', 'refuse', 'errorTitle', 'busy',
  'transcriptLabel', 'toolLabel', 'readOnlyTitle', 'readOnlyText', 'manageTrust', 'queued', 'jumpToLatest', 'openSettings', 'retryIn', 'openFileAt',
  'insertAtCursor', 'applyToFile', 'editMessage', 'retryMessage',
  'attach', 'removeAttachment', 'addCurrentFile', 'noMatches', 'commandsLabel', 'mentionsLabel', 'attachmentsLabel',
] as const;
type StringKey = (typeof STRING_KEYS)[number];
const StringsSchema = z.record(z.enum(STRING_KEYS), text);
export type Strings = Record<StringKey, string>;

/**
 * Extension → webview. `init` answers every `ready` with the whole state, so nothing is lost while the webview loads.
 * @public Read through lazyContract.ts, which knip cannot follow.
 */
export const ToWebviewSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('init'),
    strings: StringsSchema,
    connection: ConnectionViewSchema,
    entries: z.array(EntrySchema),
    busy: z.boolean(),
    changes: z.array(ChangeCardSchema),
    /** The workspace is not trusted (Restricted Mode): the agent may read and search, not write. */
    readOnly: z.boolean(),
    /** Shown docked in the side bar, whose title bar already offers New Session and Open in Editor. */
    docked: z.boolean().optional(),
    context: z.array(ContextChipSchema),
    /** The file in the active editor, offered as a one-click attachment. */
    activeFile: text.optional(),
    commands: z.array(SlashCommandSchema),
  }),
  /** What is attached to the next message (replaces the chips). */
  z.object({ type: z.literal('context'), context: z.array(ContextChipSchema) }),
  z.object({ type: z.literal('activeFile'), path: text.optional() }),
  /** The `@` completions for the query of `requestId` (only the latest request's are shown). */
  z.object({ type: z.literal('suggestions'), requestId: z.number(), items: z.array(SuggestionSchema).max(50) }),
  /** The backend's commands for the `/` menu. */
  z.object({ type: z.literal('commands'), commands: z.array(SlashCommandSchema).max(100) }),
  /**
   * Text for the message box: a message that could not go (it goes back only into an empty box),
   * or, with `replace`, a message the developer chose to edit.
   */
  z.object({ type: z.literal('draft'), text, replace: z.boolean().optional() }),
  z.object({ type: z.literal('connection'), connection: ConnectionViewSchema }),
  /** Workspace Trust changed (VS Code only ever grants it while a window is open). */
  z.object({ type: z.literal('trust'), readOnly: z.boolean() }),
  /** Adds the entry, or replaces the one with the same id. */
  z.object({ type: z.literal('entry'), entry: EntrySchema }),
  /** Replaces the whole transcript (a new session clears it). */
  z.object({ type: z.literal('entries'), entries: z.array(EntrySchema) }),
  z.object({ type: z.literal('busy'), busy: z.boolean() }),
  z.object({ type: z.literal('changes'), changes: z.array(ChangeCardSchema) }),
  /** Put the cursor in the message box (the developer opened or focused the chat). */
  z.object({ type: z.literal('focus') }),
]);
export type ToWebview = z.infer<typeof ToWebviewSchema>;

/** Webview → extension. */
const FromWebviewSchema = z.discriminatedUnion('type', [
  /** The script is listening; answer with `init`. */
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('send'), text: z.string().min(1).max(100_000) }),
  z.object({ type: z.literal('stop') }),
  z.object({ type: z.literal('retry') }),
  z.object({ type: z.literal('newSession') }),
  z.object({ type: z.literal('copy'), text }),
  z.object({ type: z.literal('approve'), id: text }),
  z.object({ type: z.literal('reject'), id: text }),
  z.object({ type: z.literal('openDiff'), id: text }),
  /** Open VS Code's Workspace Trust editor (from the read-only notice). */
  z.object({ type: z.literal('manageTrust') }),
  /** A `path:line` reference in the transcript was clicked: open that file of the served folder there. */
  z.object({ type: z.literal('openFile'), path: z.string().min(1).max(1000), line: z.number().int().min(1).max(10_000_000).optional() }),
  /** Open Settings at agentBridge.serverUrl (from the offline hint). */
  z.object({ type: z.literal('openSettings') }),
  /** Attach a file, part of one, or a symbol (an `@` completion, or the active file's one-click chip). */
  z.object({ type: z.literal('attach'), kind: z.enum(['file', 'selection', 'symbol']), path: z.string().min(1).max(1000), label: z.string().max(300).optional(), ...RangeFields }),
  z.object({ type: z.literal('detach'), id: text }),
  /** Edit on a message: its full text (the transcript keeps long ones cut) comes back as a `draft` to replace the box's. */
  z.object({ type: z.literal('edit'), entryId: text }),
  /** Retry after an error: send the developer's message `entryId` again (its attachments read again). */
  z.object({ type: z.literal('resend'), entryId: text }),
  /** A code block of an answer: into the editor at the cursor (the developer's own edit, undoable). */
  z.object({ type: z.literal('insertCode'), text: z.string().max(1_000_000) }),
  /** A code block of an answer: over the editor's selection (or whole file), as a diff to approve. */
  z.object({ type: z.literal('applyCode'), text: z.string().max(1_000_000) }),
  /** The developer typed `@query`: answer with `suggestions` for this requestId. */
  z.object({ type: z.literal('suggest'), requestId: z.number().int(), query: z.string().max(200) }),
]);
export type FromWebview = z.infer<typeof FromWebviewSchema>;

export type Parsed<T> = { readonly ok: true; readonly message: T } | { readonly ok: false; readonly error: string };

function parseWith<T>(schema: z.ZodType<T>, raw: unknown): Parsed<T> {
  const r = schema.safeParse(raw);
  return r.success ? { ok: true, message: r.data } : { ok: false, error: z.prettifyError(r.error) };
}

export const parseToWebview = (raw: unknown): Parsed<ToWebview> => parseWith(ToWebviewSchema, raw);
/** @public Read through lazyContract.ts, which knip cannot follow. */
export const parseFromWebview = (raw: unknown): Parsed<FromWebview> => parseWith(FromWebviewSchema, raw);
