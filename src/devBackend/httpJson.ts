/** JSON over HTTP for the dev backend's API: a bounded body in, a JSON answer out, and the error that carries its status. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_MESSAGE_BYTES } from '../core/protocol/messages';

export type Json = Record<string, unknown>;

/** A failure the request listener answers with this status and the message as the error. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A string field of a body that may be absent (null and '' count as absent); anything else is a 400. */
export function optionalString(body: Json, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new HttpError(400, `"${key}" must be a string.`);
  return value;
}

/** Reads at most one protocol message's worth of body, so a runaway client cannot exhaust memory. */
export async function readJsonBody(req: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.byteLength;
    if (size > MAX_MESSAGE_BYTES) throw new HttpError(413, `Body exceeds ${MAX_MESSAGE_BYTES} bytes.`);
    chunks.push(buffer);
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw new HttpError(400, `Body is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new HttpError(400, 'Body must be a JSON object.');
  return json as Json;
}

export function reply(res: ServerResponse, status: number, body: Json): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
