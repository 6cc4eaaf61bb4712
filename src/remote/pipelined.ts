/**
 * Small reads (GET and HEAD whose body is bounded) over HTTP/1.1 pipelining on a few kept-alive
 * connections. A fill asks for a thousand action entries of a few KB each; through node:http each
 * request cost the main thread ~0.4 ms (a socket write per request, a parser, a response stream),
 * more than verifying its signature. Here the requests waiting when the event loop turns go out in
 * one write per connection, and answers are cut from the bytes as they arrive
 * (docs/remote-cache.md).
 *
 * A connection pipelines only once it has answered: a new one carries a single request, so a dead
 * or hanging server is asked no more often than with one request per connection. Requests a
 * connection was closed under before their answer began (a server that stops after so many
 * requests, or a connection cut after a body over its limit) are asked again on another one; an
 * answer cut short is a failed attempt of its request. Every request has its own deadline from the moment it is written; when one
 * passes, the connection is cut and everything waiting on it fails (behind a stalled answer nothing
 * else can arrive). A connection that answered nothing before closing fails what it carried: that
 * server is not answering.
 */
import * as net from 'node:net';
import * as tls from 'node:tls';

export interface Answer {
  status: number;
  body: Buffer;
  /** The body was longer than the request allowed: `body` is empty and the connection was cut. */
  tooLarge?: boolean;
}

export class Timeout extends Error {}

export interface Endpoint {
  host: string;
  port: number;
  tls: boolean;
  /** The Host header: `host[:port]` as the URL spells it. */
  authority: string;
}

export interface PipelineOptions {
  connections: number;
  /** Requests one connection carries unanswered at once, once it has answered one. */
  depth: number;
  timeoutMs: number;
}

interface Ask {
  method: 'GET' | 'HEAD';
  path: string;
  maxBytes: number;
  resolve: (answer: Answer) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

/** A response head is refused past this size (no cache server sends one near it). */
const MAX_HEAD = 64 * 1024;

export class PipelinedReads {
  private readonly pending: Ask[] = [];
  private readonly open = new Set<Connection>();
  private pumping = false;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly opts: PipelineOptions,
  ) {}

  ask(method: 'GET' | 'HEAD', path: string, maxBytes: number): Promise<Answer> {
    return new Promise((resolve, reject) => {
      this.pending.push({ method, path, maxBytes, resolve, reject });
      this.schedule();
    });
  }

  /** Requests asked before the event loop turns are written together. */
  schedule(): void {
    if (this.pumping) return;
    this.pumping = true;
    setImmediate(() => {
      this.pumping = false;
      this.pump();
    });
  }

  /**
   * Sent again, first, after the connection it was on closed having answered something (so asking
   * again always makes progress: no request is sent again by a connection that answered nothing).
   */
  resend(asks: Ask[]): void {
    for (const ask of asks) clearTimeout(ask.timer);
    this.pending.unshift(...asks);
  }

  closed(conn: Connection): void {
    this.open.delete(conn);
    if (this.pending.length) this.schedule();
  }

  private pump(): void {
    for (const conn of this.open) {
      if (!this.pending.length) return;
      conn.send(this.pending.splice(0, conn.room()), this.opts.timeoutMs);
    }
    while (this.pending.length && this.open.size < this.opts.connections) {
      const conn = new Connection(this.endpoint, this.opts.depth, this);
      this.open.add(conn);
      conn.send(this.pending.splice(0, conn.room()), this.opts.timeoutMs);
    }
  }
}

/** How the answer being read ends: after `left` bytes, at the last chunk, or when the server closes. */
type BodyEnd =
  | { kind: 'length'; left: number }
  | { kind: 'chunked'; left: number; trailer: boolean }
  | { kind: 'close' };

interface Reading {
  status: number;
  body: Buffer[];
  got: number;
  end: BodyEnd;
  /** The server said it closes the connection after this answer. */
  last: boolean;
}

class Connection {
  private readonly socket: net.Socket;
  /** Written, not yet answered, in order. */
  private readonly sent: Ask[] = [];
  private answered = 0;
  private buf: Buffer = Buffer.alloc(0);
  private reading?: Reading;
  /** No more requests go on this connection (the server closes it, or it failed). */
  private done = false;
  private error?: Error;
  private readonly authority: string;

  constructor(
    endpoint: Endpoint,
    private readonly depth: number,
    private readonly pool: PipelinedReads,
  ) {
    this.socket = endpoint.tls
      ? tls.connect({
          host: endpoint.host,
          port: endpoint.port,
          servername: net.isIP(endpoint.host) ? undefined : endpoint.host,
        })
      : net.connect({ host: endpoint.host, port: endpoint.port });
    this.socket.setNoDelay(true);
    this.authority = endpoint.authority;
    this.socket.on('data', (chunk: Buffer) => this.data(chunk));
    this.socket.on('error', (error) => {
      this.error = error;
    });
    this.socket.on('close', () => this.close());
  }

  /** How many more requests this connection takes now: one until it has answered, then `depth`. */
  room(): number {
    if (this.done) return 0;
    return (this.answered > 0 ? this.depth : 1) - this.sent.length;
  }

  send(asks: Ask[], timeoutMs: number): void {
    if (!asks.length) return;
    let text = '';
    for (const ask of asks) {
      text += `${ask.method} ${ask.path} HTTP/1.1\r\nHost: ${this.authority}\r\n\r\n`;
      ask.timer = setTimeout(() => this.fail(new Timeout()), timeoutMs);
      this.sent.push(ask);
    }
    this.socket.ref();
    this.socket.write(text, 'latin1');
  }

  /** Every request waiting here fails with `error`, and the connection is cut. */
  private fail(error: Error): void {
    this.done = true;
    for (const ask of this.sent.splice(0)) {
      clearTimeout(ask.timer);
      ask.reject(error);
    }
    this.socket.destroy();
  }

  private data(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    try {
      while (this.sent.length && this.step());
    } catch (error) {
      if (!(error instanceof Cut)) this.fail(error as Error);
      return;
    }
    if (!this.sent.length && this.buf.length && !this.reading)
      this.fail(new Error('the server sent bytes nobody asked for'));
    if (this.done && !this.sent.length) this.socket.end();
    if (!this.sent.length) this.socket.unref();
    this.pool.schedule();
  }

  /** Reads what it can of the answer to `sent[0]`; false when more bytes are needed. */
  private step(): boolean {
    const ask = this.sent[0]!;
    if (!this.reading) {
      const head = this.until('\r\n\r\n', 'a response head');
      if (head === undefined) return false;
      const reading = parseHead(head, ask.method);
      if (reading === 'informational') return true;
      if (reading.end.kind === 'length' && reading.end.left > ask.maxBytes) {
        this.tooLarge(reading.status);
        return false;
      }
      this.reading = reading;
    }
    const r = this.reading;
    if (r.end.kind === 'length') {
      r.end.left -= this.take(r, r.end.left);
      if (r.end.left > 0) return false;
    } else if (r.end.kind === 'chunked') {
      if (!this.chunks(r, r.end)) return false;
    } else {
      this.take(r, this.buf.length);
      return false;
    }
    this.reading = undefined;
    this.answer({ status: r.status, body: Buffer.concat(r.body, r.got) });
    if (r.last) this.closing();
    return true;
  }

  /** The bytes up to `delimiter` (consumed with it), or undefined until they have all arrived. */
  private until(delimiter: string, what: string): string | undefined {
    const at = this.buf.indexOf(delimiter);
    if (at < 0) {
      if (this.buf.length > MAX_HEAD) throw new Error(`${what} larger than 64 KiB`);
      return undefined;
    }
    const text = this.buf.toString('latin1', 0, at);
    this.buf = this.buf.subarray(at + delimiter.length);
    return text;
  }

  /**
   * Moves up to `most` bytes of the buffer into the body being read and says how many; over the
   * request's limit, cuts it off.
   */
  private take(r: Reading, most: number): number {
    const n = Math.min(most, this.buf.length);
    if (n === 0) return 0;
    r.body.push(this.buf.subarray(0, n));
    r.got += n;
    this.buf = this.buf.subarray(n);
    if (r.got > this.sent[0]!.maxBytes) {
      this.reading = undefined;
      this.tooLarge(r.status);
      throw new Cut();
    }
    return n;
  }

  /**
   * The answer being read is longer than its request allows: answered as too large without reading
   * on, and the connection cut (the rest of that body stands between it and the next answer).
   */
  private tooLarge(status: number): void {
    this.answer({ status, body: Buffer.alloc(0), tooLarge: true });
    this.done = true;
    this.pool.resend(this.sent.splice(0));
    this.socket.destroy();
  }

  /** Chunked transfer coding: true once the last chunk and its trailer are read. */
  private chunks(r: Reading, end: { left: number; trailer: boolean }): boolean {
    for (;;) {
      if (end.left > 0) {
        end.left -= this.take(r, end.left);
        if (end.left > 0) return false;
        end.left = -2; // the CRLF after a chunk's data
      }
      if (end.left === -2) {
        if (this.buf.length < 2) return false;
        if (this.buf[0] !== 13 || this.buf[1] !== 10) throw new Error('a chunk not followed by CRLF');
        this.buf = this.buf.subarray(2);
        end.left = 0;
      }
      const line = this.until('\r\n', 'a chunk line');
      if (line === undefined) return false;
      if (end.trailer) {
        if (line === '') return true;
        continue;
      }
      const digits = line.split(';')[0]!.trim();
      const size = Number.parseInt(digits, 16);
      if (!/^[0-9a-fA-F]+$/.test(digits) || !Number.isSafeInteger(size))
        throw new Error(`a chunk size line ${JSON.stringify(line.slice(0, 40))}`);
      if (size === 0) end.trailer = true;
      else end.left = size;
    }
  }

  private answer(answer: Answer): void {
    const ask = this.sent.shift()!;
    clearTimeout(ask.timer);
    this.answered++;
    ask.resolve(answer);
  }

  /** The server closes after the answer just read: what was sent behind it goes elsewhere. */
  private closing(): void {
    this.done = true;
    this.pool.resend(this.sent.splice(0));
    this.socket.end();
  }

  private close(): void {
    this.done = true;
    const r = this.reading;
    this.reading = undefined;
    const waiting = this.sent.splice(0);
    for (const ask of waiting) clearTimeout(ask.timer);
    const error = this.error ?? new Error('the server closed the connection before answering');
    const [head, ...rest] = waiting;
    if (head) {
      if (r?.end.kind === 'close') {
        // A body delimited by the end of the connection is complete now.
        this.answered++;
        head.resolve({ status: r.status, body: Buffer.concat(r.body, r.got) });
      } else if (r || this.buf.length) head.reject(new Error(`the answer was cut short (${error.message})`));
      else rest.unshift(head);
    }
    if (this.answered > 0) this.pool.resend(rest);
    else for (const ask of rest) ask.reject(error);
    this.pool.closed(this);
  }
}

/** Thrown out of the parse after a too-large body was answered and the connection cut. */
class Cut extends Error {}

/** The status and how the body ends, from a response head; `informational` for a 1xx to skip. */
function parseHead(head: string, method: 'GET' | 'HEAD'): Reading | 'informational' {
  const lines = head.split('\r\n');
  const m = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]!);
  if (!m) throw new Error(`not an HTTP/1.x response (${JSON.stringify(lines[0]!.slice(0, 40))})`);
  const status = Number(m[2]);
  if (status >= 100 && status < 200) return 'informational';
  let length: number | undefined;
  let chunked = false;
  let connection = '';
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`a malformed header line ${JSON.stringify(line.slice(0, 40))}`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-length') {
      if (!/^\d+$/.test(value) || (length !== undefined && length !== Number(value)))
        throw new Error(`a content-length of ${JSON.stringify(value)}`);
      length = Number(value);
    } else if (name === 'transfer-encoding') chunked = value.toLowerCase().split(',').at(-1)!.trim() === 'chunked';
    else if (name === 'connection') connection = value.toLowerCase();
  }
  const last = m[1] === '0' ? !/\bkeep-alive\b/.test(connection) : /\bclose\b/.test(connection);
  const read = (end: BodyEnd): Reading => ({ status, body: [], got: 0, end, last });
  if (method === 'HEAD' || status === 204 || status === 304) return read({ kind: 'length', left: 0 });
  if (chunked) return read({ kind: 'chunked', left: 0, trailer: false });
  if (length !== undefined) return read({ kind: 'length', left: length });
  return { ...read({ kind: 'close' }), last: true };
}
