import type { Access } from '../policy/accessPolicy';
import type { JudgedPath } from './judgedPath';
import type { Encoding } from '../workspace/text';
import type { LineRange, NotebookCellEdit } from '../edit/types';


/** A change a writing tool wants to make, before anyone has approved it. */
export interface ProposedChange {
  /** The tool call's id. */
  readonly id: string;
  readonly toolName: string;
  /**
   * Where the change goes, classified by the access policy: a protected or secret path is always
   * shown to a person, whatever the approval mode, with a warning saying why.
   */
  readonly path: Access;
  /**
   * The same path with the identity of every folder on the way as judged: the host calls its
   * `recheck` immediately before it writes, and writes nothing if the path changed since.
   */
  readonly judged: JudgedPath;
  /** The text the change was computed from; undefined when the file does not exist yet. */
  readonly original: string | undefined;
  readonly proposed: string;
  /** Encoding to write a new or disk-read file with (BOMs are kept). */
  readonly encoding: Encoding;
  readonly description?: string;
  /** Lines of `proposed` the change touched: what "format the changed range" formats. */
  readonly changedLines?: LineRange;
  readonly notebookEdit?: NotebookCellEdit;
}

/** What was actually written once the change was approved. */
export interface CommittedChange {
  /** The file's text after the change, the developer's edits and formatting. */
  readonly finalText: string;
  /** The developer edited the proposal, or dropped some of its hunks, before approving it. */
  readonly modifiedByUser: boolean;
  /** How many of the proposal's changed regions the developer dropped before approving (absent: none). */
  readonly droppedHunks?: number;
  readonly formatted: boolean;
  /** False when the file had unsaved edits of the developer's: the change is in the buffer, not yet on disk. */
  readonly saved: boolean;
}

/**
 * The host's side of every write: show the change, get consent, apply, format, save. Throws
 * ToolError USER_REJECTED when refused, CONFLICT when the file changed underneath, CANCELLED when
 * the call was withdrawn. Nothing is written unless it resolves.
 */
export interface ChangeGate {
  commit(change: ProposedChange, signal: AbortSignal, hooks?: GateHooks): Promise<CommittedChange>;
  /**
   * Asked before a writing tool so much as opens a secret file: resolves when a person allows the
   * agent to propose a change to it (the change itself is still shown and approved after), throws
   * USER_REJECTED or CANCELLED otherwise. Absent on a host with nobody to ask: such changes are
   * refused unread.
   */
  allowSecretChange?(request: SecretChangeRequest, signal: AbortSignal): Promise<void>;
}

/** What a gate tells the call about its own course. */
export interface GateHooks {
  /** How long the change waited for a person's decision (approved, rejected or withdrawn). */
  approvalWait?(ms: number): void;
}

export interface SecretChangeRequest {
  readonly id: string;
  readonly toolName: string;
  readonly path: Access;
  /** The agent's own words for the change, if it gave any. */
  readonly description?: string;
}
