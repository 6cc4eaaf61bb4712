/**
 * Tar entries with any raw type flag, including the ones the `tar` package cannot encode (unknown
 * types such as `Z`): a plain ustar header is encoded, then its type byte is replaced and the
 * header checksum recomputed, as a hand-made archive would have it.
 */
import { Header } from 'tar';

const BLOCK = 512;
const TYPE_FLAG = 156;
const CHECKSUM = 148;

/** One header block plus its padded body, with `flag` as the raw type byte. */
export function rawEntry(name: string, flag: string, body: string | Buffer = '', linkpath = ''): Buffer {
  const bytes = Buffer.from(body);
  const h = new Header({ path: name, type: 'File', size: bytes.length, mode: 0o644, uid: 0, gid: 0, mtime: new Date(0), uname: '', gname: '' });
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
