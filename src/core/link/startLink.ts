import { Bridge, type AnswerListener, type Outbox } from './bridge';
import { BridgeConnection, type ConnectionOptions } from './connection';
import { Dispatcher, type DispatcherOptions } from './dispatcher';

export interface LinkOptions {
  /** What answers the calls: the workspace, the tools, the gate for writes, limits, the journal. */
  readonly dispatcher: DispatcherOptions;
  /** Where the calls come from: the backend's URL, session, token and trust. */
  readonly connection: Omit<ConnectionOptions, 'log'>;
  /** An outbox that outlives this link (the extension keeps one per session); else one of its own. */
  readonly outbox?: Outbox;
  /** How long the link's own outbox keeps answers finished while it is down. */
  readonly outboxTtlMs?: number | (() => number);
}

/** A running link: one path for every call (connection → dispatcher → policy → tool → bridge → connection). */
export interface Link {
  readonly connection: BridgeConnection;
  readonly dispatcher: Dispatcher;
  readonly bridge: Bridge;
  /** Every answer, with its call, as it goes out (the chat listens here). */
  onAnswer(listener: AnswerListener): () => void;
  /** Opens the connection (it reconnects on its own until stopped). */
  connect(): void;
  /** Cancels what runs, stops answering new calls, closes the connection. */
  stop(reason: string): void;
}

/**
 * Wires one link, the same way for every host (the VS Code extension and the headless host):
 * the dispatcher owns running a call, the bridge owns answering it exactly once, and listeners
 * learn of answers from the bridge rather than by dispatching again.
 */
export function startLink(o: LinkOptions): Link {
  const log = o.dispatcher.log;
  const dispatcher = new Dispatcher(o.dispatcher);
  const connection = new BridgeConnection({ ...o.connection, log });
  const bridge = new Bridge(connection, dispatcher, { log, ...(o.outbox ? { outbox: o.outbox } : {}), ...(o.outboxTtlMs !== undefined ? { outboxTtlMs: o.outboxTtlMs } : {}) });
  return {
    connection,
    dispatcher,
    bridge,
    onAnswer: (listener) => bridge.onAnswer(listener),
    connect: () => connection.connect(),
    stop(reason) {
      dispatcher.cancelAll(reason);
      bridge.dispose();
      connection.disconnect();
    },
  };
}
