import WebSocket from 'ws';
import type { Logger } from '../log';

/** Bytes waiting to be sent past which no new frame is read from the backend, and below which reading resumes. */
export const SEND_BUFFER_HIGH = 16 * 1024 * 1024;
export const SEND_BUFFER_LOW = 2 * 1024 * 1024;

/**
 * How frames leave a connection's socket (connection.ts `send`): batched per turn of the event
 * loop, and, when the backend stops reading, with reading paused until it catches up.
 */
export class Outflow {
  /** The socket whose writes are held until the end of this turn. */
  private corked: WebSocket | undefined;

  constructor(
    private readonly log: Logger,
    /** The connection's socket now: a socket replaced meanwhile is left alone. */
    private readonly current: () => WebSocket | undefined,
  ) {}

  send(socket: WebSocket, text: string): void {
    this.batchWrites(socket);
    socket.send(text);
    if (socket.bufferedAmount > SEND_BUFFER_HIGH && !socket.isPaused) this.holdBack(socket);
  }

  /**
   * Frames sent in one turn of the event loop leave in one write: the TCP socket under the
   * WebSocket is corked until the turn ends. With many calls in flight each answer had been a
   * write system call of its own, a fifth of the host's time per read_file (bench: 65 µs of
   * 330). A lone answer waits for nothing but the end of its turn. (`_socket` is ws's own
   * field for the connection it speaks over; without it, frames go one write each.)
   */
  private batchWrites(socket: WebSocket): void {
    if (this.corked === socket) return;
    const raw = (socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
    if (!raw || typeof raw.cork !== 'function') return;
    raw.cork();
    this.corked = socket;
    setImmediate(() => {
      if (this.corked === socket) this.corked = undefined;
      raw.uncork();
    });
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
