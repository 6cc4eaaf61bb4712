/**
 * Hand-made tars for bundle tests: entries of any type and name (hostile ones included), encoded
 * with the `tar` package's Header, plus a reader of a real bundle's entries and their offsets.
 */
import { Header } from 'tar';

export interface RawEntry {
  name: string;
  body?: Buffer | string;
  type?: 'File' | 'SymbolicLink' | 'Link' | 'CharacterDevice' | 'BlockDevice' | 'FIFO' | 'Directory';
  linkpath?: string;
  /** A header size that lies about the body. */
  size?: number;
}

export function makeTar(entries: readonly RawEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.body ?? '');
    const h = new Header({ path: e.name, type: e.type ?? 'File', size: e.size ?? body.length, mode: 0o644, uid: 0, gid: 0, mtime: new Date(0), linkpath: e.linkpath, uname: '', gname: '' });
    h.encode();
    parts.push(h.block!, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** Entries of a plain tar: name, body and where the body starts. */
export function tarEntries(tar: Buffer): Array<{ name: string; body: Buffer; offset: number }> {
  const out: Array<{ name: string; body: Buffer; offset: number }> = [];
  let at = 0;
  while (at + 512 <= tar.length) {
    const h = new Header(tar, at);
    if (h.nullBlock) break;
    const size = h.size ?? 0;
    out.push({ name: h.path!, body: tar.subarray(at + 512, at + 512 + size), offset: at + 512 });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}
