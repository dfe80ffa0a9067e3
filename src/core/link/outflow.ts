import WebSocket from 'ws';
import type { Logger } from '../log';

/** Bytes waiting to be sent past which no new frame is read from the backend, and below which reading resumes. */
const SEND_BUFFER_HIGH = 16 * 1024 * 1024;
const SEND_BUFFER_LOW = 2 * 1024 * 1024;

/** Past this many bytes a batch goes out at once: batching saves system calls on small frames, and a large one only waits. */
const BATCH_BYTES = 256 * 1024;

type RawSocket = { cork(): void; uncork(): void };

/**
 * How frames leave a connection's socket (connection.ts `send`): batched while the code running
 * now runs, and, when the backend stops reading, with reading paused until it catches up.
 */
export class Outflow {
  /** The batch being held until the code running now is done, if any. */
  private batch: { readonly socket: WebSocket; readonly raw: RawSocket } | undefined;

  constructor(
    private readonly log: Logger,
    /** The connection's socket now: a socket replaced meanwhile is left alone. */
    private readonly current: () => WebSocket | undefined,
  ) {}

  /**
   * Frames sent while the current callbacks and promise jobs run leave in one write: the TCP
   * socket under the WebSocket is corked until they are done (process.nextTick, before any I/O
   * or timer runs), or until the batch passes BATCH_BYTES. With many calls in flight each answer
   * had been a write system call of its own, a large share of the host's time per read_file
   * (docs/design.md); a lone answer waits for nothing but the code already running. Backpressure is
   * judged on what is handed to the socket, never on a batch still held. (`_socket` is ws's own
   * field for the connection it speaks over; without it, frames go one write each.)
   */
  send(socket: WebSocket, text: string): void {
    const held = this.hold(socket);
    socket.send(text);
    if (held && socket.bufferedAmount <= BATCH_BYTES) return;
    this.release(socket);
    this.checkBacklog(socket);
  }

  /** Corks the socket for a batch, or joins the one held; false when it cannot be corked. */
  private hold(socket: WebSocket): boolean {
    if (this.batch?.socket === socket) return true;
    const raw = (socket as unknown as { _socket?: RawSocket })._socket;
    if (!raw || typeof raw.cork !== 'function') return false;
    raw.cork();
    const batch = { socket, raw };
    this.batch = batch;
    process.nextTick(() => {
      if (this.batch !== batch) return;
      this.release(socket);
      this.checkBacklog(socket);
    });
    return true;
  }

  private release(socket: WebSocket): void {
    const batch = this.batch;
    if (batch?.socket !== socket) return;
    this.batch = undefined;
    batch.raw.uncork();
  }

  private checkBacklog(socket: WebSocket): void {
    if (socket.readyState === WebSocket.OPEN && socket.bufferedAmount > SEND_BUFFER_HIGH && !socket.isPaused) this.holdBack(socket);
  }

  /** No frame is read from the backend until what waits to go out drains below SEND_BUFFER_LOW. */
  private holdBack(socket: WebSocket): void {
    socket.pause();
    this.log.warn(`the backend is not reading (${socket.bufferedAmount} bytes waiting to go out): no new calls are read until it catches up`);
    const timer = setInterval(() => {
      if (this.current() !== socket || socket.readyState !== WebSocket.OPEN) {
        clearInterval(timer);
      } else if (socket.bufferedAmount < SEND_BUFFER_LOW) {
        clearInterval(timer);
        socket.resume();
        this.log.info('the backend caught up; reading calls again');
      }
    }, 50);
    timer.unref();
  }
}
