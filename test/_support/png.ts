/**
 * Reads a PNG far enough to judge a screenshot: its size from IHDR, and its pixels (8-bit RGB or
 * RGBA, not interlaced: what Chromium writes) from the inflated IDAT data with each row's filter
 * undone. node:zlib only.
 */
import { inflateSync } from 'node:zlib';

export interface Png {
  width: number;
  height: number;
  /** Bytes per pixel: 3 (RGB) or 4 (RGBA). */
  channels: number;
  /** Unfiltered pixel bytes, row after row. */
  pixels: Buffer;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Undoes each row's filter (PNG spec, section 9) in place of a fresh buffer. */
function unfilter(data: Buffer, width: number, height: number, bpp: number): Buffer {
  const stride = width * bpp;
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = data[y * (stride + 1)]!;
    const row = y * (stride + 1) + 1;
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? out[y * stride + x - bpp]! : 0;
      const b = y > 0 ? out[(y - 1) * stride + x]! : 0;
      const c = x >= bpp && y > 0 ? out[(y - 1) * stride + x - bpp]! : 0;
      const raw = data[row + x]!;
      const predicted = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter];
      if (predicted === undefined) throw new Error(`PNG row ${y}: unknown filter ${filter}`);
      out[y * stride + x] = (raw + predicted) & 0xff;
    }
  }
  return out;
}

export function readPng(png: Buffer): Png {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG');
  let at = 8;
  let header: Buffer | undefined;
  const idat: Buffer[] = [];
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') header = body;
    if (type === 'IDAT') idat.push(body);
    at += 12 + length;
  }
  if (!header) throw new Error('PNG without IHDR');
  const [width, height, depth, colour, interlace] = [
    header.readUInt32BE(0),
    header.readUInt32BE(4),
    header[8],
    header[9],
    header[12],
  ];
  if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0)
    throw new Error(`PNG of depth ${depth}, colour type ${colour}, interlace ${interlace}: not read here`);
  const channels = colour === 6 ? 4 : 3;
  return { width, height, channels, pixels: unfilter(inflateSync(Buffer.concat(idat)), width, height, channels) };
}

/** How many pixels are within `tolerance` of the colour `rgb` in each channel. */
export function countColour(png: Png, rgb: [number, number, number], tolerance = 8): number {
  let n = 0;
  for (let i = 0; i < png.pixels.length; i += png.channels)
    if (rgb.every((v, k) => Math.abs(png.pixels[i + k]! - v) <= tolerance)) n++;
  return n;
}

/** The number of distinct RGB colours. */
export function distinctColours(png: Png): number {
  const seen = new Set<number>();
  for (let i = 0; i < png.pixels.length; i += png.channels)
    seen.add((png.pixels[i]! << 16) | (png.pixels[i + 1]! << 8) | png.pixels[i + 2]!);
  return seen.size;
}
