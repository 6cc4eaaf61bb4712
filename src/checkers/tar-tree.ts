/**
 * The tool-tree digest of a container filesystem, computed from a tar stream (what the engine's
 * export gives) without unpacking it: every regular file, symlink and hard link under the selected
 * absolute paths, as a sorted listing of (path, mode, content sha256 or link target), hashed.
 *
 * The tar reader is deliberately small: it understands ustar headers with their prefix field, the
 * PAX `path`/`linkpath`/`size` records and GNU long names (`L`/`K`), which is what Go's archive/tar
 * (podman) writes. Anything it cannot read is an error, never a silently shorter listing.
 */
import { createHash, type Hash } from 'node:crypto';
import { posix } from 'node:path';
import { sha256Id, type Sha256Id } from '../hash/index.js';

interface ToolTreeEntry {
  /** Absolute path inside the image. */
  path: string;
  /** Permission bits (`mode & 0o7777`). */
  mode: number;
  kind: 'file' | 'symlink' | 'special';
  /** `sha256:<hex>` of a file's bytes, a symlink's target, or the special file's tar type. */
  value: string;
}

export interface ToolTreeListing {
  digest: Sha256Id;
  entries: ToolTreeEntry[];
}

/** Throws when a tool path is not absolute and normalised (`/usr/bin/coqc`, never `usr/bin/` or `/a/../b`). */
export function checkToolPaths(paths: readonly string[]): string[] {
  if (paths.length === 0) throw new Error('Expected at least one tool path, got none');
  for (const p of paths) {
    if (!p.startsWith('/') || p === '/' || posix.normalize(p) !== p || p.endsWith('/')) {
      throw new Error(`Expected a tool path to be absolute and normalised (e.g. /usr/bin/coqc), got \`${p}\``);
    }
  }
  return [...new Set(paths)].sort(byteOrder);
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * The listing text that is hashed: a header naming the selected paths, then one line per entry,
 * fields separated by NUL (paths cannot hold NUL), sorted bytewise by path.
 */
function listingDigest(paths: readonly string[], entries: readonly ToolTreeEntry[]): Sha256Id {
  const sorted = [...entries].sort((a, b) => byteOrder(a.path, b.path));
  const lines = [`vkit.tool-tree/1\0${paths.join('\0')}\n`];
  for (const e of sorted) lines.push(`${e.path}\0${e.mode.toString(8)}\0${e.kind}\0${e.value}\n`);
  return sha256Id(lines.join(''));
}

const BLOCK = 512;

/** Parses a tar stream and returns the digest over the entries under `paths` (each must be present). */
export async function toolTreeFromTar(
  stream: AsyncIterable<Buffer | Uint8Array>,
  toolPaths: readonly string[],
): Promise<ToolTreeListing> {
  const paths = checkToolPaths(toolPaths);
  const selected = (p: string) => paths.some((root) => p === root || p.startsWith(`${root}/`));
  const entries = new Map<string, ToolTreeEntry>();
  const fileDigests = new Map<string, string>();
  const hardLinks: { path: string; mode: number; target: string }[] = [];

  let buf = Buffer.alloc(0);
  // Header state between chunks: the entry being read, the bytes left in it (plus padding).
  let current:
    | { path: string; mode: number; type: string; linkname: string; size: number; hash?: Hash; body?: Buffer[] }
    | undefined;
  let remaining = 0;
  let padding = 0;
  let pax: Record<string, string> = {};
  let gnuLongName: string | undefined;
  let gnuLongLink: string | undefined;
  let ended = false;

  const finishEntry = () => {
    const e = current!;
    current = undefined;
    if (e.type === 'x' || e.type === 'g' || e.type === 'L' || e.type === 'K') {
      const text = Buffer.concat(e.body ?? []).toString('utf8');
      if (e.type === 'x') pax = parsePax(text);
      else if (e.type === 'L') gnuLongName = text.replace(/\0+$/, '');
      else if (e.type === 'K') gnuLongLink = text.replace(/\0+$/, '');
      return;
    }
    if (e.hash) {
      const digest = `sha256:${e.hash.digest('hex')}`;
      fileDigests.set(e.path, digest);
      if (selected(e.path)) entries.set(e.path, { path: e.path, mode: e.mode, kind: 'file', value: digest });
    }
  };

  const readHeader = (h: Buffer) => {
    if (h.every((b) => b === 0)) {
      ended = true;
      return;
    }
    if (!checksumOk(h)) throw new Error('tool tree: the tar stream has a corrupt header (checksum mismatch)');
    const name = field(h, 0, 100);
    const prefix = h.subarray(257, 263).toString('latin1').startsWith('ustar') ? field(h, 345, 155) : '';
    const type = String.fromCharCode(h[156]! || 0x30);
    const rawPath = pax.path ?? gnuLongName ?? (prefix ? `${prefix}/${name}` : name);
    const linkname = pax.linkpath ?? gnuLongLink ?? field(h, 157, 100);
    const size = pax.size !== undefined ? Number(pax.size) : octal(h, 124, 12);
    const mode = octal(h, 100, 8) & 0o7777;
    const isMeta = type === 'x' || type === 'g' || type === 'L' || type === 'K';
    if (!isMeta) {
      pax = {};
      gnuLongName = undefined;
      gnuLongLink = undefined;
    }
    if (!Number.isSafeInteger(size) || size < 0)
      throw new Error(`tool tree: bad entry size in the tar stream at \`${rawPath}\``);
    const path = absolute(rawPath);
    current = { path, mode, type, linkname, size };
    if (isMeta) current.body = [];
    else if (type === '0' || type === '7') current.hash = createHash('sha256');
    else if (type === '2') {
      if (selected(path)) entries.set(path, { path, mode, kind: 'symlink', value: linkname });
    } else if (type === '1') {
      hardLinks.push({ path, mode, target: absolute(linkname) });
    } else if (type !== '5') {
      // Character and block devices, fifos: not expected in a tool tree; listed so a change shows.
      if (selected(path)) entries.set(path, { path, mode, kind: 'special', value: `tar-type:${type}` });
    }
    remaining = type === '5' || type === '2' || type === '1' ? 0 : size;
    padding = (BLOCK - (remaining % BLOCK)) % BLOCK;
    if (remaining === 0) finishEntry();
  };

  for await (const chunk of stream) {
    if (ended) continue; // drain: the engine may pad after the end marker
    buf = buf.length ? Buffer.concat([buf, chunk]) : Buffer.from(chunk);
    let off = 0;
    while (!ended) {
      if (current && remaining > 0) {
        const take = Math.min(remaining, buf.length - off);
        if (take === 0) break;
        const piece = buf.subarray(off, off + take);
        if (current.hash) current.hash.update(piece);
        else if (current.body) current.body.push(Buffer.from(piece));
        off += take;
        remaining -= take;
        if (remaining === 0) finishEntry();
        continue;
      }
      if (padding > 0) {
        const take = Math.min(padding, buf.length - off);
        if (take === 0) break;
        off += take;
        padding -= take;
        continue;
      }
      if (buf.length - off < BLOCK) break;
      readHeader(buf.subarray(off, off + BLOCK));
      off += BLOCK;
    }
    buf = buf.subarray(off);
  }
  // A stream cut at an entry boundary would otherwise look complete: only the end marker says it is.
  if (!ended)
    throw new Error(
      current || padding > 0 || buf.length > 0
        ? 'tool tree: the tar stream ended in the middle of an entry'
        : 'tool tree: the tar stream ended before its end-of-archive marker',
    );

  for (const link of hardLinks) {
    const digest = fileDigests.get(link.target);
    if (digest === undefined)
      throw new Error(
        `tool tree: hard link \`${link.path}\` names \`${link.target}\`, which the stream did not hold before it`,
      );
    if (selected(link.path)) entries.set(link.path, { path: link.path, mode: link.mode, kind: 'file', value: digest });
  }
  const list = [...entries.values()];
  for (const root of paths) {
    if (!list.some((e) => e.path === root || e.path.startsWith(`${root}/`))) {
      throw new Error(`tool tree: \`${root}\` holds no file or link in the image`);
    }
  }
  list.sort((a, b) => byteOrder(a.path, b.path));
  return { digest: listingDigest(paths, list), entries: list };
}

/** `./usr/bin/x` and `usr/bin/x` both become `/usr/bin/x`. */
function absolute(p: string): string {
  const n = posix.normalize(`/${p.replace(/^\.\//, '')}`);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
}

function field(h: Buffer, start: number, len: number): string {
  const raw = h.subarray(start, start + len);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? len : end).toString('utf8');
}

function octal(h: Buffer, start: number, len: number): number {
  const raw = h.subarray(start, start + len);
  // GNU base-256 for large values: the high bit of the first byte is set.
  if (raw[0]! & 0x80) {
    let n = raw[0]! & 0x7f;
    for (let i = 1; i < raw.length; i++) n = n * 256 + raw[i]!;
    return n;
  }
  const text = raw.toString('latin1').replace(/\0.*$/s, '').trim();
  return text === '' ? 0 : parseInt(text, 8);
}

function checksumOk(h: Buffer): boolean {
  const want = octal(h, 148, 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  return sum === want;
}

/** PAX records: `<len> <key>=<value>\n`, where len counts the whole record in bytes. */
function parsePax(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const bytes = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < bytes.length) {
    const space = bytes.indexOf(0x20, off);
    if (space === -1) break;
    const len = Number(bytes.subarray(off, space).toString('latin1'));
    if (!Number.isSafeInteger(len) || len <= 0) throw new Error('tool tree: malformed PAX header in the tar stream');
    const record = bytes.subarray(space + 1, off + len - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    off += len;
  }
  return out;
}
