/**
 * The HTTP remote-cache protocol Bazel, bazel-remote and plain WebDAV servers speak: GET, HEAD and
 * PUT on `<base>/cas/<sha256 hex>` (blobs, by their digest) and `<base>/ac/<hex>` (action results;
 * vkit stores a signed envelope there). Every request has a bounded timeout and a few retries with
 * backoff (on a network error or a 5xx, never on a 4xx), so a slow or dead server costs at most a
 * known time. Blobs are streamed both ways and a download is hashed as it arrives: a body that is
 * short, long or different is refused, never written where it could be taken for the blob.
 *
 * A build asks for every action's entry at once; at most `connections` requests are in flight (a
 * server's worker limit is not a reason to miss). Once a request has failed every attempt (no
 * answer, a network error, a 5xx), the server counts as down for a minute: requests in that time
 * fail at once, so a dead server costs a build one timeout round, not one per action, and a
 * long-lived process (watch, the daemon) asks again later.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, rmSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import PQueue from 'p-queue';

export interface RemoteOptions {
  /** Base URL (`http://127.0.0.1:8080/cache`): no trailing slash needed. */
  url: string;
  /** Milliseconds each request may take, body included. @default 5000 */
  timeoutMs?: number;
  /** Further attempts after a network error or a 5xx. @default 2 */
  retries?: number;
  /** Largest action entry read, in bytes. @default 8 MiB */
  maxActionBytes?: number;
  /** Requests in flight at once. @default 16 */
  connections?: number;
}

export type Fetched<T> = { ok: true; value: T } | { ok: false; missing: boolean; reason: string };

const hex = (id: string) => id.replace(/^sha256:/, '');
/** How long a server that failed every attempt of a request is not asked again. */
const DOWN_MS = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class RemoteCache {
  readonly url: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly maxActionBytes: number;
  private readonly slots: PQueue;
  /** Why and until when the server counts as down (a request failed every attempt). */
  private down?: { reason: string; until: number };

  constructor(opts: RemoteOptions) {
    this.url = opts.url.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.retries = opts.retries ?? 2;
    this.maxActionBytes = opts.maxActionBytes ?? 8 * 1024 * 1024;
    this.slots = new PQueue({ concurrency: opts.connections ?? 16 });
  }

  /**
   * One request with retries. `consume` reads the response within the same deadline (a server that
   * sends headers and then stalls is cut off too); a thrown error is a failed attempt.
   */
  private request<T>(
    method: 'GET' | 'HEAD' | 'PUT',
    path: string,
    consume: (res: Response, signal: AbortSignal) => Promise<Fetched<T>>,
    body?: () => BodyInit,
  ): Promise<Fetched<T>> {
    return this.slots.add(() => this.attempts(method, path, consume, body)) as Promise<Fetched<T>>;
  }

  private async attempts<T>(
    method: 'GET' | 'HEAD' | 'PUT',
    path: string,
    consume: (res: Response, signal: AbortSignal) => Promise<Fetched<T>>,
    body?: () => BodyInit,
  ): Promise<Fetched<T>> {
    if (this.down && performance.now() < this.down.until)
      return { ok: false, missing: false, reason: `${method} /${path}: not asked, ${this.down.reason}` };
    let last = '';
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) await sleep(100 * 2 ** (attempt - 1));
      const signal = AbortSignal.timeout(this.timeoutMs);
      try {
        const init: RequestInit & { duplex?: 'half' } = { method, signal, redirect: 'error' };
        if (body) Object.assign(init, { body: body(), duplex: 'half' });
        const res = await fetch(`${this.url}/${path}`, init);
        if (res.status >= 500) {
          await res.body?.cancel().catch(() => {});
          last = `${method} /${path}: server error ${res.status}`;
          continue;
        }
        return await consume(res, signal);
      } catch (error) {
        const e = error as Error;
        last = `${method} /${path}: ${e.name === 'TimeoutError' || signal.aborted ? `no answer within ${this.timeoutMs} ms` : e.message}`;
      }
    }
    this.down = { reason: `the server failed within the last minute (${last})`, until: performance.now() + DOWN_MS };
    return { ok: false, missing: false, reason: last };
  }

  /** The action entry under `key`: its bytes (at most maxActionBytes), or why there are none. */
  getAction(key: string): Promise<Fetched<Buffer>> {
    return this.request('GET', `ac/${hex(key)}`, async (res) => {
      if (res.status === 404) {
        await res.body?.cancel().catch(() => {});
        return { ok: false, missing: true, reason: 'no entry' };
      }
      if (res.status !== 200) return { ok: false, missing: false, reason: `GET ac: status ${res.status}` };
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body ?? []) {
        size += chunk.length;
        if (size > this.maxActionBytes)
          return { ok: false, missing: false, reason: `action entry larger than ${this.maxActionBytes} bytes` };
        chunks.push(Buffer.from(chunk));
      }
      return { ok: true, value: Buffer.concat(chunks) };
    });
  }

  putAction(key: string, body: Buffer): Promise<Fetched<void>> {
    return this.request('PUT', `ac/${hex(key)}`, putDone, () => new Uint8Array(body));
  }

  /** Whether the server holds the blob (HEAD). */
  async hasBlob(sha256: string): Promise<Fetched<boolean>> {
    return this.request('HEAD', `cas/${hex(sha256)}`, async (res) => {
      if (res.status === 200) return { ok: true, value: true };
      if (res.status === 404) return { ok: true, value: false };
      return { ok: false, missing: false, reason: `HEAD cas: status ${res.status}` };
    });
  }

  /**
   * Streams the blob into `file`, hashing as it arrives; the file is removed unless the body is
   * exactly `size` bytes hashing to `sha256`.
   */
  getBlob(sha256: string, size: number, file: string): Promise<Fetched<void>> {
    return this.request('GET', `cas/${hex(sha256)}`, async (res) => {
      if (res.status === 404) {
        await res.body?.cancel().catch(() => {});
        return { ok: false, missing: true, reason: `blob ${hex(sha256).slice(0, 12)} is not on the server` };
      }
      if (res.status !== 200 || !res.body)
        return { ok: false, missing: false, reason: `GET cas: status ${res.status}` };
      const hash = createHash('sha256');
      let got = 0;
      try {
        await pipeline(
          Readable.fromWeb(res.body as import('node:stream/web').ReadableStream),
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
      const digest = `sha256:${hash.digest('hex')}`;
      if (got !== size || digest !== sha256) {
        rmSync(file, { force: true });
        return {
          ok: false,
          missing: false,
          reason: `blob ${hex(sha256).slice(0, 12)}: got ${got} bytes hashing to ${digest.slice(0, 19)}, expected ${size} bytes`,
        };
      }
      return { ok: true, value: undefined };
    });
  }

  /** Uploads a file (streamed) as the blob `sha256`. */
  putBlobFile(sha256: string, file: string): Promise<Fetched<void>> {
    const size = statSync(file).size;
    return this.request('PUT', `cas/${hex(sha256)}`, putDone, () =>
      size === 0 ? new Uint8Array() : (Readable.toWeb(createReadStream(file)) as unknown as BodyInit),
    );
  }

  /** Whether the server answers the protocol: HEAD of a blob nobody has (200 or 404 both mean yes). */
  async reachable(): Promise<Fetched<number>> {
    return this.request('HEAD', `cas/${'0'.repeat(64)}`, async (res) =>
      res.status === 200 || res.status === 404
        ? { ok: true, value: res.status }
        : { ok: false, missing: false, reason: `status ${res.status}` },
    );
  }
}

async function putDone(res: Response): Promise<Fetched<void>> {
  await res.body?.cancel().catch(() => {});
  return res.status >= 200 && res.status < 300
    ? { ok: true, value: undefined }
    : { ok: false, missing: false, reason: `PUT: status ${res.status}` };
}
