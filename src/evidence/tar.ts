/**
 * Writing a deterministic tar: the entries in the order given, every header with the same fixed
 * mode, owner, group and time, no directories, no extended headers. The same entries therefore
 * always give the same bytes, wherever and whenever they are written. Headers are encoded by the
 * `tar` package; content is streamed from files so large artifacts never sit in memory.
 *
 * Reading side: `walkHeaders` shows each raw header block of a tar stream as it passes, before any
 * parser builds an entry from it (the `tar` package skips some types unseen and folds others into
 * the next entry).
 */
import { closeSync, createReadStream, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { publishTemp, tempBeside } from './publish.js';
import { Transform, type TransformCallback } from 'node:stream';
import { Header } from 'tar';

/** One entry to write: bytes in memory, or a file streamed in. */
export type TarSource = { name: string; size: number; bytes: Buffer } | { name: string; size: number; file: string };

const BLOCK = 512;
/** Fixed metadata: the bundle's bytes depend on its content only. */
const FIXED = { mode: 0o644, uid: 0, gid: 0, uname: '', gname: '', mtime: new Date(0) } as const;

function header(name: string, size: number): Buffer {
  const h = new Header({ path: name, size, type: 'File', ...FIXED });
  h.encode();
  // Bundle names are short ASCII paths; one that needs a pax header would break determinism.
  if (h.needPax || !h.block) throw new Error(`tar entry name \`${name}\` does not fit a plain ustar header`);
  return h.block;
}

/**
 * Writes the tar to a fresh temp file beside `out`, fsyncs it and puts it in place: over an existing
 * file only with `replace` (`publishTemp`).
 */
export async function writeTar(out: string, entries: readonly TarSource[], replace: boolean): Promise<void> {
  const temp = tempBeside(out);
  const fd = openSync(temp, 'wx', 0o644);
  try {
    for (const e of entries) {
      writeSync(fd, header(e.name, e.size));
      let written = 0;
      if ('bytes' in e) {
        writeSync(fd, e.bytes);
        written = e.bytes.length;
      } else {
        for await (const chunk of createReadStream(e.file)) {
          writeSync(fd, chunk as Buffer);
          written += (chunk as Buffer).length;
        }
      }
      // A file that changed size since it was listed would shift every later header.
      if (written !== e.size) throw new Error(`tar entry \`${e.name}\` has ${written} bytes, expected ${e.size}`);
      const pad = (BLOCK - (written % BLOCK)) % BLOCK;
      if (pad) writeSync(fd, Buffer.alloc(pad));
    }
    writeSync(fd, Buffer.alloc(2 * BLOCK));
    fsyncSync(fd);
    closeSync(fd);
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(temp, { force: true });
    throw error;
  }
  publishTemp(temp, out, replace);
}

/** A header block as written, before any parser interprets it. */
export interface RawHeader {
  /** The type flag byte as written: `0` for a regular file. */
  flag: string;
  /** The name, with its ustar prefix. */
  name: string;
  /** The declared size of the body that follows. */
  size: number;
  /** The type the `tar` package reads (it takes an old-style `0` whose name ends in `/` for a directory). */
  type: string;
  /** Whether its checksum matches and its fields decode; the rest is meaningless when not. */
  wellFormed: boolean;
}

const TYPE_FLAG = 156;

function readHeader(block: Buffer): RawHeader {
  const flag = String.fromCharCode(block[TYPE_FLAG]!);
  try {
    const h = new Header(block);
    return { flag, name: h.path ?? '', size: h.size ?? 0, type: String(h.type), wellFormed: h.cksumValid === true };
  } catch {
    return { flag, name: '', size: 0, type: '', wellFormed: false };
  }
}

/** What `walkHeaders` shows; a throw from either stops the stream with that error. */
export interface HeaderInspector {
  /** Each header block, before a byte of it is passed on. */
  header(h: RawHeader): void;
  /** A non-zero byte after the end-of-archive marker (a zero block where a header belongs). */
  afterEnd(): void;
}

/**
 * A pass-through stream that walks a tar's 512-byte blocks, body sizes taken from the headers it
 * lets through, and shows every header to `inspect` before passing it on.
 */
export function walkHeaders(inspect: HeaderInspector): Transform {
  let partial = Buffer.alloc(0); // a header block split across chunks
  let body = 0; // body and padding bytes still to pass before the next header
  let ended = false;
  const walk = (chunk: Buffer, out: Transform) => {
    let at = 0;
    while (at < chunk.length) {
      if (ended) {
        if (chunk.subarray(at).some((b) => b !== 0)) inspect.afterEnd();
        out.push(chunk.subarray(at));
        return;
      }
      if (body > 0) {
        const n = Math.min(body, chunk.length - at);
        out.push(chunk.subarray(at, at + n));
        body -= n;
        at += n;
        continue;
      }
      const piece = chunk.subarray(at, at + BLOCK - partial.length);
      at += piece.length;
      partial = Buffer.concat([partial, piece]);
      if (partial.length < BLOCK) return;
      const block = partial;
      partial = Buffer.alloc(0);
      if (block.every((b) => b === 0)) ended = true;
      else {
        const h = readHeader(block);
        inspect.header(h);
        body = Math.ceil(h.size / BLOCK) * BLOCK;
      }
      out.push(block);
    }
  };
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      try {
        walk(chunk, this);
        done();
      } catch (error) {
        done(error as Error);
      }
    },
    // A last partial block goes on too: the parser calls the archive truncated.
    flush(done: TransformCallback) {
      done(null, partial.length > 0 ? partial : undefined);
    },
  });
}
