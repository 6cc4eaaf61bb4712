/**
 * Acceptance documents as parsed TOML plus a locator for line numbers. smol-toml gives no source
 * positions, so `locate` scans the text for table headers and keys: enough to point a message at
 * the right line. Dates and times are normalised to their TOML text (`2026-08-28`), so the rest of
 * the acceptance code sees plain JSON-like values.
 */
import { readFile } from 'node:fs/promises';
import { noteRead } from './reads.js';
import { parse, TomlDate, TomlError } from 'smol-toml';
import { invalid } from '../errors.js';

/** A field path inside a document: `['claim', 2, 'self_verify', 'command']`. */
export type FieldPath = readonly (string | number)[];

export type Table = Record<string, unknown>;

export interface Doc {
  /** The path as the user gave it (relative to --root); used in every message. */
  readonly file: string;
  /** Absolute path on disk. */
  readonly abs: string;
  readonly bytes: Buffer;
  readonly text: string;
  readonly data: Table;
  /** The 1-based line of a field (or of its nearest enclosing table header), when it can be found. */
  line(path: FieldPath): number | undefined;
}

/** `claim[2].self_verify.command`: the form field paths take in messages and JSON. */
export function pathText(path: FieldPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

export function parseDoc(bytes: Buffer, file: string, abs = file): Doc {
  const text = bytes.toString('utf8');
  let raw: Table;
  try {
    raw = parse(text) as Table;
  } catch (error) {
    const e = error as TomlError;
    const first = String(e.message).split('\n')[0];
    throw invalid('ERR_ACCEPTANCE_PARSE', `Cannot parse TOML: ${first}`, { file, line: typeof e.line === 'number' ? e.line : undefined }, 'Fix the TOML syntax at that line.');
  }
  return { file, abs, bytes, text, data: normalise(raw) as Table, line: (path) => locate(text, path) };
}

export async function readDoc(abs: string, file: string): Promise<Doc> {
  let bytes: Buffer;
  try {
    bytes = await readFile(abs);
    noteRead(abs);
  } catch (error) {
    throw invalid('ERR_USAGE', `Cannot read \`${file}\`: ${(error as Error).message}`, { file });
  }
  return parseDoc(bytes, file, abs);
}

function normalise(value: unknown): unknown {
  if (value instanceof TomlDate) return value.toISOString();
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v)]));
  return value;
}

const HEADER = /^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;
const KEY = /^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+(?:\s*\.\s*[A-Za-z0-9_-]+)*)\s*=/;

const unquote = (k: string) => k.trim().replace(/^["']|["']$/g, '');
const splitKey = (k: string) => k.split('.').map(unquote);

/**
 * The line of `path`: walks the text keeping the current table's path (array-of-tables headers
 * count their entries per parent, as TOML does) and returns the line of the deepest match: the key
 * itself, else the header of the innermost table on the path.
 */
export function locate(text: string, path: FieldPath): number | undefined {
  const want = path.map(String);
  const lines = text.split('\n');
  const counts = new Map<string, number>();
  let current: string[] = [];
  let best: { line: number; depth: number } | undefined;
  const consider = (candidate: string[], line: number) => {
    let depth = 0;
    while (depth < candidate.length && depth < want.length && candidate[depth] === want[depth]) depth++;
    if (depth < candidate.length) return; // the candidate leaves the wanted path
    if (!best || depth > best.depth) best = { line, depth };
  };
  let inMultiline: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (inMultiline) {
      if (raw.includes(inMultiline)) inMultiline = undefined;
      continue;
    }
    const header = HEADER.exec(raw);
    if (header && !KEY.test(raw)) {
      const names = splitKey(header[2]!);
      if (header[1] === '[[') {
        // Resolve the parent through the current path (nested arrays of tables belong to the latest entry).
        const parent = resolveParent(current, names.slice(0, -1));
        const key = [...parent, names.at(-1)!].join('\u0000');
        const index = counts.get(key) ?? 0;
        counts.set(key, index + 1);
        for (const k of counts.keys()) if (k.startsWith(key + '\u0000')) counts.delete(k);
        current = [...parent, names.at(-1)!, String(index)];
      } else {
        current = resolveParent(current, names);
      }
      consider(current, i + 1);
      continue;
    }
    const key = KEY.exec(raw);
    if (key) {
      consider([...current, ...splitKey(key[1]!)], i + 1);
      const rest = raw.slice(key[0].length);
      const opener = /^\s*("""|''')/.exec(rest);
      if (opener && rest.indexOf(opener[1]!, rest.indexOf(opener[1]!) + 3) < 0) inMultiline = opener[1];
    }
  }
  return best?.line;
}

/** Maps header names to the current path's indices: `claim.evidence` under `claim/2` is `claim/2/evidence`. */
function resolveParent(current: string[], names: string[]): string[] {
  const out: string[] = [];
  let c = 0;
  for (const name of names) {
    out.push(name);
    if (current[c] === name) {
      c++;
      if (c < current.length && /^\d+$/.test(current[c]!)) out.push(current[c++]!);
    } else c = current.length;
  }
  return out;
}

/** Small typed readers that never throw: validators report what is wrong themselves. */
export const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (t: Table | undefined, k: string): string | undefined => (t && typeof t[k] === 'string' ? (t[k] as string) : undefined);
export const tables = (t: Table | undefined, k: string): Table[] => (t && Array.isArray(t[k]) ? (t[k] as unknown[]).filter(isTable) : []);
export const table = (t: Table | undefined, k: string): Table | undefined => (t && isTable(t[k]) ? (t[k] as Table) : undefined);
