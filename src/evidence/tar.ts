/**
 * Writing a deterministic tar: the entries in the order given, every header with the same fixed
 * mode, owner, group and time, no directories, no extended headers. The same entries therefore
 * always give the same bytes, wherever and whenever they are written. Headers are encoded by the
 * `tar` package; content is streamed from files so large artifacts never sit in memory.
 */
import { closeSync, createReadStream, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
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

/** Writes the tar to a temp file beside `out`, fsyncs it and renames it into place. */
export async function writeTar(out: string, entries: readonly TarSource[]): Promise<void> {
  const temp = `${out}.partial-${process.pid}`;
  const fd = openSync(temp, 'w');
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
    renameSync(temp, out);
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(temp, { force: true });
    throw error;
  }
}
