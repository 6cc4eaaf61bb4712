/**
 * MCP over stdio: one JSON-RPC message per line. Unlike the SDK's stdio transport, which drops a
 * line it cannot read with only a log line (so the client waits for an answer that never comes),
 * this one answers it as JSON-RPC 2.0 says and keeps serving: text that is not JSON gets -32700
 * (Parse error), JSON that is not a JSON-RPC message gets -32600 (Invalid Request), both with id
 * null unless the message's own id can be read. A line past the size limit is dropped whole and
 * answered -32600 too, so a client cannot make the server buffer without end.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
/** Longest message line read, as the SDK's transport allows. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

type ErrorReply = { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string } };

export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** True while the rest of an over-long line is being dropped. */
  private skipping = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {}

  private readonly onData = (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      this.take(chunk.subarray(start, nl));
      this.endLine();
      start = nl + 1;
    }
    this.take(chunk.subarray(start));
  };

  private readonly onInputError = (error: Error) => this.onerror?.(error);

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
  }

  send(message: JSONRPCMessage | ErrorReply): Promise<void> {
    return new Promise((done) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) done();
      else this.output.once('drain', done);
    });
  }

  async close(): Promise<void> {
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.pending = [];
    this.onclose?.();
  }

  private take(bytes: Buffer): void {
    if (this.skipping || bytes.length === 0) return;
    this.pendingBytes += bytes.length;
    if (this.pendingBytes > MAX_LINE_BYTES) {
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = true;
      return;
    }
    this.pending.push(bytes);
  }

  private endLine(): void {
    const line = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
    const skipped = this.skipping;
    this.pending = [];
    this.pendingBytes = 0;
    this.skipping = false;
    if (skipped)
      return this.reply(null, INVALID_REQUEST, `Invalid Request: a message longer than ${MAX_LINE_BYTES} bytes`);
    // A blank line carries no message: nothing to answer.
    if (line.trim() === '') return;
    this.dispatch(line);
  }

  private dispatch(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      return this.reply(null, PARSE_ERROR, `Parse error: ${(error as Error).message}`);
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success)
      return this.reply(
        readableId(value),
        INVALID_REQUEST,
        'Invalid Request: expected a JSON-RPC 2.0 request, notification or response object (jsonrpc "2.0", and a string method or an id with a result or error)',
      );
    this.onmessage?.(parsed.data);
  }

  private reply(id: string | number | null, code: number, message: string): void {
    this.onerror?.(new Error(message));
    this.send({ jsonrpc: '2.0', id, error: { code, message } }).catch((error) => this.onerror?.(error as Error));
  }
}

/** The message's id when it is one a JSON-RPC id may be, else null. */
function readableId(value: unknown): string | number | null {
  const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
