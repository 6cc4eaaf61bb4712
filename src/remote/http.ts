/**
 * The HTTP remote-cache protocol Bazel, bazel-remote and plain WebDAV servers speak: GET, HEAD and
 * PUT on `<base>/cas/<sha256 hex>` (blobs, by their digest) and `<base>/ac/<hex>` (action results;
 * vkit stores a signed envelope there). Every request has a bounded timeout and a few retries with
 * backoff (on a network error or a 5xx, never on a 4xx), so a slow or dead server costs at most a
 * known time. Blobs are streamed both ways and a download is hashed as it arrives: a body that is
 * short, long or different is refused, never written where it could be taken for the blob.
 *
 * A build asks for every action's entry at once. Small reads (action entries, small blobs, HEAD)
 * are pipelined on at most `connections` connections, `pipelining` unanswered requests each
 * (`pipelined.ts`); uploads and large downloads, streamed, go through node:http(s) with kept-alive
 * connections, at most `connections` at once. Once a request has failed every attempt (no answer,
 * a network error, a 5xx), the server counts as down for a minute: requests in that time fail at
 * once, so a dead server costs a build one timeout round, not one per action, and a long-lived
 * process (watch, the daemon) asks again later.
 *
 * Not `fetch`: a fill makes a thousand and more small requests, and fetch's web streams cost the
 * main thread several times more per request than node:http, which costs several times more than
 * pipelining (docs/remote-cache.md).
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, rmSync, statSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import PQueue from 'p-queue';
import { type Answer, PipelinedReads, Timeout } from './pipelined.js';

export interface RemoteOptions {
  /** Base URL (`http://127.0.0.1:8080/cache`): no trailing slash needed. */
  url: string;
  /** Milliseconds each request may take, body included. @default 5000 */
  timeoutMs?: number;
  /** Further attempts after a network error or a 5xx. @default 2 */
  retries?: number;
  /** Largest action entry read, in bytes. @default 8 MiB */
  maxActionBytes?: number;
  /** Connections to the server at once. @default 8 */
  connections?: number;
  /** Unanswered small reads one connection carries at once (HTTP/1.1 pipelining). @default 16 */
  pipelining?: number;
}

export type Fetched<T> = { ok: true; value: T } | { ok: false; missing: boolean; reason: string };

/** A request body: bytes, or a stream of a known length (made again for each attempt). */
type Body = Buffer | { size: number; open: () => Readable };

/** Reads a response within the request's deadline; a thrown error is a failed attempt. */
type Consume<T> = (res: http.IncomingMessage) => Promise<Fetched<T>>;

/** One attempt: its result, or the server error (5xx) that makes it worth another. */
type Attempt<T> = Promise<{ result: Fetched<T> } | { serverError: number }>;

const hex = (id: string) => id.replace(/^sha256:/, '');
/** How long a server that failed every attempt of a request is not asked again. */
const DOWN_MS = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class RemoteCache {
  readonly url: string;
  /** Where requests go: host, port and the base path every request's path is appended to. */
  private readonly target: { hostname: string; port?: number; path: string };
  private readonly client?: typeof http | typeof https;
  private readonly agent?: http.Agent;
  private readonly reads?: PipelinedReads;
  /** Why no request is made at all (a URL vkit will not use), or undefined. */
  private readonly unusable?: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly maxActionBytes: number;
  private readonly slots: PQueue;
  /**
   * Small reads in flight (their retries included): `connections` until the server has answered
   * one, then `connections` x `pipelining`; a dead or hanging server is asked no more often than
   * before pipelining, and the breaker below stops the rest.
   */
  private readonly readSlots: PQueue;
  private readonly pipelined: number;
  /** Why and until when the server counts as down (a request failed every attempt). */
  private down?: { reason: string; until: number };

  constructor(opts: RemoteOptions) {
    this.url = opts.url.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.retries = opts.retries ?? 2;
    this.maxActionBytes = opts.maxActionBytes ?? 8 * 1024 * 1024;
    const connections = opts.connections ?? 8;
    this.slots = new PQueue({ concurrency: connections });
    this.readSlots = new PQueue({ concurrency: connections });
    this.pipelined = connections * (opts.pipelining ?? 16);
    let base: URL;
    try {
      base = new URL(`${this.url}/`);
    } catch {
      base = new URL('invalid:');
    }
    // Request options made once (as node makes them from a URL): a URL parsed per request showed
    // in a fill's profile. Paths below the base are hex digests, which need no escaping.
    this.target = {
      hostname: base.hostname.startsWith('[') ? base.hostname.slice(1, -1) : base.hostname,
      ...(base.port ? { port: Number(base.port) } : {}),
      path: base.pathname,
    };
    const client = base.protocol === 'http:' ? http : base.protocol === 'https:' ? https : undefined;
    if (!client) this.unusable = `${this.url} is not an http:// or https:// URL`;
    // The URL is recorded with the evidence (provenance, notes): a password in it would be too.
    else if (base.username || base.password)
      this.unusable = 'the remote URL carries a user name or password, which vkit would record with its evidence';
    else {
      this.client = client;
      // Idle kept-alive sockets are unref'd by the agent: they never hold a finished process open.
      this.agent = new client.Agent({ keepAlive: true, maxSockets: connections });
      this.reads = new PipelinedReads(
        {
          host: this.target.hostname,
          port: this.target.port ?? (client === https ? 443 : 80),
          tls: client === https,
          authority: base.host,
        },
        { connections, depth: opts.pipelining ?? 16, timeoutMs: this.timeoutMs },
      );
    }
  }

  /** A request through node:http (an upload, a streamed download), at most `connections` at once. */
  private request<T>(method: 'GET' | 'PUT', path: string, consume: Consume<T>, body?: Body) {
    return this.slots.add(() => this.attempts(method, path, () => this.once(method, path, consume, body))) as Promise<
      Fetched<T>
    >;
  }

  /**
   * A small read, pipelined: its answer's body (at most `maxBytes`, else `tooLarge`) judged by
   * `judge`, which may throw to fail the attempt.
   */
  private read<T>(method: 'GET' | 'HEAD', path: string, maxBytes: number, judge: (a: Answer) => Fetched<T>) {
    const once = async (): Attempt<T> => {
      const answer = await this.reads!.ask(method, this.target.path + path, maxBytes);
      if (answer.status >= 500) return { serverError: answer.status };
      if (this.readSlots.concurrency !== this.pipelined) this.readSlots.concurrency = this.pipelined;
      return { result: judge(answer) };
    };
    return this.readSlots.add(() => this.attempts(method, path, once)) as Promise<Fetched<T>>;
  }

  private async attempts<T>(method: string, path: string, once: () => Attempt<T>): Promise<Fetched<T>> {
    if (this.down && performance.now() < this.down.until)
      return { ok: false, missing: false, reason: `${method} /${path}: not asked, ${this.down.reason}` };
    if (this.unusable) return { ok: false, missing: false, reason: this.unusable };
    let last = '';
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) await sleep(100 * 2 ** (attempt - 1));
      try {
        const answer = await once();
        if ('result' in answer) return answer.result;
        last = `${method} /${path}: server error ${answer.serverError}`;
      } catch (error) {
        last = `${method} /${path}: ${error instanceof Timeout ? `no answer within ${this.timeoutMs} ms` : (error as Error).message}`;
      }
    }
    this.down = { reason: `the server failed within the last minute (${last})`, until: performance.now() + DOWN_MS };
    this.readSlots.concurrency = Math.max(1, this.slots.concurrency);
    return { ok: false, missing: false, reason: last };
  }

  /**
   * One attempt: the request, and `consume` reading its response, within one deadline (a server
   * that sends headers and then stalls is cut off too). Redirects are not followed.
   */
  private once<T>(method: 'GET' | 'PUT', path: string, consume: Consume<T>, body?: Body): Attempt<T> {
    const client = this.client!;
    return new Promise((resolve, reject) => {
      let res: http.IncomingMessage | undefined;
      let source: Readable | undefined;
      const fail = (error: Error) => {
        clearTimeout(timer);
        source?.destroy();
        req.destroy();
        res?.destroy();
        reject(error);
      };
      const timer = setTimeout(() => fail(new Timeout()), this.timeoutMs);
      const size = body === undefined ? 0 : Buffer.isBuffer(body) ? body.length : body.size;
      const req = client.request({
        ...this.target,
        path: this.target.path + path,
        method,
        agent: this.agent,
        headers: method === 'PUT' ? { 'content-length': size } : {},
      });
      req.on('error', fail);
      req.on('response', (got) => {
        res = got;
        got.on('error', fail);
        const status = got.statusCode ?? 0;
        if (status >= 500) {
          got.resume();
          clearTimeout(timer);
          resolve({ serverError: status });
          return;
        }
        consume(got).then(
          (result) => {
            clearTimeout(timer);
            // What the reader left unread: a finished body is drained so the socket is reused; an
            // unfinished one (an entry over its size limit) is cut off with its connection.
            if (!got.readableEnded) got.complete ? got.resume() : got.destroy();
            resolve({ result });
          },
          (error: Error) => fail(error),
        );
      });
      if (body === undefined || Buffer.isBuffer(body)) req.end(body);
      else {
        source = body.open();
        source.on('error', fail);
        source.pipe(req);
      }
    });
  }

  /** The action entry under `key`: its bytes (at most maxActionBytes), or why there are none. */
  getAction(key: string): Promise<Fetched<Buffer>> {
    return this.read('GET', `ac/${hex(key)}`, this.maxActionBytes, (a) => {
      if (a.status === 404) return { ok: false, missing: true, reason: 'no entry' };
      if (a.status !== 200) return { ok: false, missing: false, reason: `GET ac: status ${a.status}` };
      if (a.tooLarge)
        return { ok: false, missing: false, reason: `action entry larger than ${this.maxActionBytes} bytes` };
      return { ok: true, value: a.body };
    });
  }

  putAction(key: string, body: Buffer): Promise<Fetched<void>> {
    return this.request('PUT', `ac/${hex(key)}`, putDone, body);
  }

  /** Whether the server holds the blob (HEAD). */
  async hasBlob(sha256: string): Promise<Fetched<boolean>> {
    return this.read('HEAD', `cas/${hex(sha256)}`, 0, (a) => {
      if (a.status === 200) return { ok: true, value: true };
      if (a.status === 404) return { ok: true, value: false };
      return { ok: false, missing: false, reason: `HEAD cas: status ${a.status}` };
    });
  }

  /**
   * The blob's bytes, held in memory (for blobs known to be small): refused unless the body is
   * exactly `size` bytes hashing to `sha256`.
   */
  getBlobBytes(sha256: string, size: number): Promise<Fetched<Buffer>> {
    return this.read('GET', `cas/${hex(sha256)}`, size, (a) => {
      const refused = blobStatus(sha256, a.status);
      if (refused) return refused;
      if (a.tooLarge) throw new Error(`longer than its ${size} bytes`);
      return (
        blobChecked(sha256, size, a.body.length, createHash('sha256').update(a.body)) ?? { ok: true, value: a.body }
      );
    });
  }

  /**
   * Streams the blob into `file`, hashing as it arrives; the file is removed unless the body is
   * exactly `size` bytes hashing to `sha256`.
   */
  getBlob(sha256: string, size: number, file: string): Promise<Fetched<void>> {
    return this.request('GET', `cas/${hex(sha256)}`, async (res) => {
      const refused = blobStatus(sha256, res.statusCode ?? 0);
      if (refused) return refused;
      const hash = createHash('sha256');
      let got = 0;
      try {
        await pipeline(
          res,
          async function* (source) {
            for await (const chunk of source) {
              got += chunk.length;
              if (got > size) throw new Error(`longer than its ${size} bytes`);
              hash.update(chunk);
              yield chunk;
            }
          },
          createWriteStream(file),
        );
      } catch (error) {
        rmSync(file, { force: true });
        throw error;
      }
      const wrong = blobChecked(sha256, size, got, hash);
      if (wrong) rmSync(file, { force: true });
      return wrong ?? { ok: true, value: undefined };
    });
  }

  /** Uploads bytes held in memory (already hashed by the caller) as the blob `sha256`. */
  putBlobBytes(sha256: string, bytes: Buffer): Promise<Fetched<void>> {
    return this.request('PUT', `cas/${hex(sha256)}`, putDone, bytes);
  }

  /** Uploads a file (streamed) as the blob `sha256`. */
  putBlobFile(sha256: string, file: string): Promise<Fetched<void>> {
    const size = statSync(file).size;
    return this.request('PUT', `cas/${hex(sha256)}`, putDone, { size, open: () => createReadStream(file) });
  }

  /** Whether the server answers the protocol: HEAD of a blob nobody has (200 or 404 both mean yes). */
  async reachable(): Promise<Fetched<number>> {
    return this.read('HEAD', `cas/${'0'.repeat(64)}`, 0, (a) =>
      a.status === 200 || a.status === 404
        ? { ok: true, value: a.status }
        : { ok: false, missing: false, reason: `status ${a.status}` },
    );
  }
}

/** A blob response that carries no body to read: absent, or an unexpected status. */
function blobStatus(sha256: string, status: number): Fetched<never> | undefined {
  if (status === 404)
    return { ok: false, missing: true, reason: `blob ${hex(sha256).slice(0, 12)} is not on the server` };
  if (status !== 200) return { ok: false, missing: false, reason: `GET cas: status ${status}` };
  return undefined;
}

/** Why a downloaded body is not the blob it was asked for, or undefined when it is. */
function blobChecked(
  sha256: string,
  size: number,
  got: number,
  hash: ReturnType<typeof createHash>,
): Fetched<never> | undefined {
  const digest = `sha256:${hash.digest('hex')}`;
  if (got === size && digest === sha256) return undefined;
  return {
    ok: false,
    missing: false,
    reason: `blob ${hex(sha256).slice(0, 12)}: got ${got} bytes hashing to ${digest.slice(0, 19)}, expected ${size} bytes`,
  };
}

async function putDone(res: http.IncomingMessage): Promise<Fetched<void>> {
  const status = res.statusCode ?? 0;
  return status >= 200 && status < 300
    ? { ok: true, value: undefined }
    : { ok: false, missing: false, reason: `PUT: status ${status}` };
}
