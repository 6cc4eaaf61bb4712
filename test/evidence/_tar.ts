/**
 * Hand-made tars for bundle tests: entries of any type and name (hostile ones included), encoded
 * with the `tar` package's Header; entries with any raw type byte, including ones the package
 * cannot encode (`Z`: the type byte replaced and the checksum recomputed); a schema-valid bundle
 * manifest; and a reader of a real bundle's entries and their offsets.
 */
import { Header } from 'tar';
import { sha256Id } from '../../src/hash/index.js';

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
    const h = new Header({
      path: e.name,
      type: e.type ?? 'File',
      size: e.size ?? body.length,
      mode: 0o644,
      uid: 0,
      gid: 0,
      mtime: new Date(0),
      linkpath: e.linkpath,
      uname: '',
      gname: '',
    });
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
const BLOCK = 512;
const TYPE_FLAG = 156;
const CHECKSUM = 148;

/** One header block plus its padded body, with `flag` as the raw type byte. */
export function rawEntry(name: string, flag: string, body: string | Buffer = '', linkpath = ''): Buffer {
  const bytes = Buffer.from(body);
  const h = new Header({
    path: name,
    type: 'File',
    size: bytes.length,
    mode: 0o644,
    uid: 0,
    gid: 0,
    mtime: new Date(0),
    uname: '',
    gname: '',
  });
  h.encode();
  const block = Buffer.from(h.block!);
  block[TYPE_FLAG] = flag.charCodeAt(0);
  if (linkpath) block.write(linkpath, 157, 100, 'utf8');
  writeChecksum(block);
  return Buffer.concat([block, bytes, Buffer.alloc((BLOCK - (bytes.length % BLOCK)) % BLOCK)]);
}

/** The ustar checksum: the byte sum of the header with the checksum field read as eight spaces. */
function writeChecksum(block: Buffer): void {
  block.fill(0x20, CHECKSUM, CHECKSUM + 8);
  let sum = 0;
  for (const b of block.subarray(0, BLOCK)) sum += b;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, CHECKSUM, 8, 'ascii');
}

const ZERO = `sha256:${'0'.repeat(64)}`;

/** A schema-valid bundle manifest listing `listed` (name -> body) with correct digests and sizes. */
export function bundleManifest(listed: Record<string, string>): string {
  return JSON.stringify({
    schema: 'vkit.evidence/1',
    run: 'run_x',
    label: 'check:a',
    kind: 'check',
    job: { key: ZERO, sha256: ZERO },
    receipt: { sha256: ZERO },
    source: { capture: ZERO, files: 1 },
    outcome: { outcome: 'PASS', claim: 'established', reason: null },
    obligations: [],
    checker: null,
    artifacts: [],
    entries: Object.entries(listed).map(([name, body]) => ({
      name,
      sha256: sha256Id(body),
      size: Buffer.byteLength(body),
    })),
    assets: { requested: false, capsules: [] },
    integrity: 'x',
  });
}
