/**
 * Acceptance documents as parsed TOML plus a locator for line numbers. smol-toml gives no source
 * positions, so the locator scans the text for table headers and keys: enough to point a message at
 * the right line. Dates and times are normalised to their TOML text (`2026-08-28`), so the rest of
 * the acceptance code sees plain JSON-like values.
 *
 * Refused as unparsable before anything reads the data (exit 2, ERR_ACCEPTANCE_PARSE, with the
 * line): bytes that are not UTF-8 (TOML requires it, and decoding would quietly turn them into
 * U+FFFD), and values nested more than MAX_DEPTH levels deep. A UTF-8 byte-order mark at the start
 * is allowed, as TOML 1.0 allows it: the parser skips it, the bytes (and so every hash) keep it.
 */
import { readFile } from 'node:fs/promises';
import { noteRead } from './reads.js';
import { parse, TomlDate, TomlError } from 'smol-toml';
import { invalid } from '../../../src/errors.js';
import { firstInvalidUtf8 } from '../../../src/text/utf8.js';

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
  /** Where the text holds a TOML date or time (read as its text in `data`): only date fields may. */
  readonly datePaths: readonly FieldPath[];
  /** The 1-based line of a field (or of its nearest enclosing table header), when it can be found. */
  line(path: FieldPath): number | undefined;
}

/**
 * The deepest a value may sit: keys, tables and array entries on its path counted together
 * (`claim[0].evidence[1].inputs[2].digest` is 7). Acceptance documents need about eight; the bound
 * keeps every recursive walk over the data (here, in the validators, JSON.stringify, deep
 * comparisons) far from the stack limit, whatever the document holds.
 */
export const MAX_DEPTH = 64;

/** `claim[2].self_verify.command`: the form field paths take in messages and JSON. */
export function pathText(path: FieldPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

export function parseDoc(bytes: Buffer, file: string, abs = file): Doc {
  refuseInvalidUtf8(bytes, file);
  const text = bytes.toString('utf8');
  const raw = parseToml(text, file);
  const deep = tooDeepPath(raw);
  if (deep) throw tooDeep(file, lineOfDeepPath(text, deep));
  let index: LineIndex | undefined;
  const datePaths: FieldPath[] = [];
  const data = normalise(raw, [], datePaths) as Table;
  return { file, abs, bytes, text, data, datePaths, line: (path) => (index ??= lineIndex(text))(path) };
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

function parseToml(text: string, file: string): Table {
  try {
    // smol-toml's own limit bounds its recursion over inline arrays and tables.
    return parse(text, { maxDepth: MAX_DEPTH }) as Table;
  } catch (error) {
    if (!(error instanceof TomlError)) {
      // Not a syntax error but the parser giving out (a RangeError: stack or string size): the
      // document is still what cannot be read, so it is refused the same way, never a crash.
      throw invalid(
        'ERR_ACCEPTANCE_PARSE',
        `Cannot parse TOML: ${(error as Error).message}`,
        { file },
        'Check the document for runaway nesting or size.',
      );
    }
    const line = typeof error.line === 'number' ? error.line : undefined;
    if (error.message.includes('excessively nested')) throw tooDeep(file, line); // smol-toml's maxDepth refusal
    throw invalid(
      'ERR_ACCEPTANCE_PARSE',
      `Cannot parse TOML: ${error.message.split('\n')[0]}`,
      { file, line },
      'Fix the TOML syntax at that line.',
    );
  }
}

function tooDeep(file: string, line: number | undefined) {
  return invalid(
    'ERR_ACCEPTANCE_PARSE',
    `Cannot parse TOML: values are nested deeper than ${MAX_DEPTH} levels (keys, tables and array entries counted together)`,
    { file, line },
    `Flatten the key, table header or inline value at that line: acceptance documents need about eight levels, vkit reads at most ${MAX_DEPTH}.`,
  );
}

// ---------------------------------------------------------------------------------------------
// UTF-8
// ---------------------------------------------------------------------------------------------

function refuseInvalidUtf8(bytes: Buffer, file: string): void {
  const at = firstInvalidUtf8(bytes);
  if (at === undefined) return;
  let end = at + 1;
  while (end < Math.min(bytes.length, at + 4) && (bytes[end]! & 0xc0) === 0x80) end++; // its continuation bytes
  const shown = [...bytes.subarray(at, end)].map((b) => `0x${b.toString(16).toUpperCase().padStart(2, '0')}`).join(' ');
  throw invalid(
    'ERR_ACCEPTANCE_PARSE',
    `Cannot parse TOML: the document is not valid UTF-8 at byte ${at} (${shown})`,
    { file, line: lineAtByte(bytes, at) },
    'TOML documents are UTF-8: re-save the file as UTF-8, or replace the bytes at that offset.',
  );
}

function lineAtByte(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

// ---------------------------------------------------------------------------------------------
// Nesting
// ---------------------------------------------------------------------------------------------

interface Visit {
  container: object;
  key?: string | number;
  parent?: Visit;
  depth: number;
}

/**
 * The path of a value nested deeper than MAX_DEPTH, or undefined. Iterative: smol-toml builds
 * dotted keys and table headers of any length without recursion, so the data can be thousands of
 * levels deep when this runs. Only tables and arrays are visited: a huge array of numbers costs
 * no allocation per number.
 */
function tooDeepPath(data: Table): FieldPath | undefined {
  const stack: Visit[] = [{ container: data, depth: 0 }];
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    const { container, depth } = visit;
    const keys = Array.isArray(container) ? undefined : Object.keys(container);
    const size = keys ? keys.length : (container as unknown[]).length;
    if (size > 0 && depth === MAX_DEPTH) return [...pathOf(visit), keys ? keys[0]! : 0];
    for (let i = 0; i < size; i++) {
      const key = keys ? keys[i]! : i;
      const value = (container as Record<string | number, unknown>)[key];
      if (isContainer(value)) stack.push({ container: value, key, parent: visit, depth: depth + 1 });
    }
  }
  return undefined;
}

const isContainer = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && !(value instanceof TomlDate);

function pathOf(visit: Visit): (string | number)[] {
  const path: (string | number)[] = [];
  for (let v: Visit | undefined = visit; v?.key !== undefined; v = v.parent) path.push(v.key);
  return path.reverse();
}

/**
 * Plain objects and arrays with dates as text; their paths are noted in `dates`. Recursive, which
 * is safe: parseDoc has refused anything nested deeper than MAX_DEPTH. Written as loops over one
 * path stack: a package of thousands of claims has hundreds of thousands of values, and building
 * entries, maps and a path per value cost a third of its reading.
 */
function normalise(value: unknown, path: Array<string | number>, dates: FieldPath[]): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof TomlDate) {
    dates.push([...path]);
    return value.toISOString();
  }
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      out[i] = normalise(value[i], path, dates);
      path.pop();
    }
    return out;
  }
  const out: Table = {};
  for (const k of Object.keys(value)) {
    path.push(k);
    const v = normalise((value as Table)[k], path, dates);
    path.pop();
    // A key named __proto__ is data: assigning it would set the object's prototype instead.
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The locator
// ---------------------------------------------------------------------------------------------

const KEY = /^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+(?:\s*\.\s*[A-Za-z0-9_-]+)*)\s*=/;

const unquote = (k: string) => k.trim().replace(/^["']|["']$/g, '');
const splitKey = (k: string) => k.split('.').map(unquote);

/** A key or table header as the locator reads it: its field path (array entries by index) and line. */
interface Placement {
  path: readonly string[];
  line: number;
}

/**
 * Paths are cut to this many segments: more than any path looked up (at most MAX_DEPTH + 1), few
 * enough that a text spelling paths thousands of segments long is still scanned in linear time.
 */
const PLACED_SEGMENTS = 2 * MAX_DEPTH;
const cut = (path: string[]) => (path.length > PLACED_SEGMENTS ? path.slice(0, PLACED_SEGMENTS) : path);

/**
 * Every table header and key of the text, in order, with its path: the scan keeps the current
 * table's path (array-of-tables headers count their entries per parent, as TOML does) and skips
 * the inside of multi-line strings that start after a key.
 */
function placements(text: string): Placement[] {
  const placed: Placement[] = [];
  const entries = new ArrayEntries();
  let current: string[] = [];
  let inMultiline: string | undefined;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.endsWith('\r') ? lines[i]!.slice(0, -1) : lines[i]!;
    if (inMultiline) {
      if (raw.includes(inMultiline)) inMultiline = undefined;
      continue;
    }
    const key = KEY.exec(raw);
    const header = key ? undefined : headerOf(raw);
    if (header) {
      const names = cut(splitKey(header.name));
      if (header.array) {
        // Resolve the parent through the current path (nested arrays of tables belong to the latest entry).
        const array = [...resolveParent(current, names.slice(0, -1)), names.at(-1)!];
        current = cut([...array, String(entries.next(array))]);
      } else {
        current = resolveParent(current, names);
      }
      placed.push({ path: current, line: i + 1 });
    } else if (key) {
      placed.push({ path: cut([...current, ...splitKey(key[1]!)]), line: i + 1 });
      const rest = raw.slice(key[0].length);
      const opener = /^\s*("""|''')/.exec(rest);
      if (opener && rest.indexOf(opener[1]!, rest.indexOf(opener[1]!) + 3) < 0) inMultiline = opener[1];
    }
  }
  return placed;
}

/**
 * `[name]` or `[[name]]` alone on its line, a comment allowed after it. Read by hand: the regular
 * expression for it backtracked in cubic time on a long run of blanks after a `[`.
 */
function headerOf(line: string): { array: boolean; name: string } | undefined {
  const open = line.search(/\S/);
  if (open < 0 || line[open] !== '[') return undefined;
  const close = line.indexOf(']', open);
  if (close <= open + 1 || !onlyCommentAfter(line, close + 1)) return undefined;
  // `[[]` is a table named `[`: an array header needs a name after its two brackets.
  const array = line[open + 1] === '[' && close > open + 2;
  return { array, name: line.slice(open + (array ? 2 : 1), close) };
}

/** After a header's first `]`: an optional second `]`, blanks, then nothing or a comment. */
function onlyCommentAfter(line: string, from: number): boolean {
  let i = line[from] === ']' ? from + 1 : from;
  while (i < line.length && /\s/.test(line[i]!)) i++;
  return i === line.length || (line[i] === '#' && !/[\r\u2028\u2029]/.test(line.slice(i)));
}

/** The entries each array of tables has had so far; a new entry starts the arrays nested in it afresh. */
class ArrayEntries {
  private readonly root: EntryCount = { children: new Map() };

  /** The index of a new entry of the array at `path`. */
  next(path: readonly string[]): number {
    let node = this.root;
    for (const name of path) {
      let child = node.children.get(name);
      if (!child) node.children.set(name, (child = { children: new Map() }));
      node = child;
    }
    const index = node.count ?? 0;
    node.count = index + 1;
    node.children.clear();
    return index;
  }
}

interface EntryCount {
  count?: number;
  children: Map<string, EntryCount>;
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
  return cut(out);
}

type LineIndex = (path: FieldPath) => number | undefined;

/** Joined paths that no two different paths share (a segment may hold any character). */
const pathKey = (path: readonly string[]) => path.map((p) => `${p.length}:${p}`).join('');

/**
 * The line of any field path, from one scan of the text: the first line placing the path itself,
 * else the first placing its longest prefix (the innermost enclosing table header, or the key
 * whose inline value holds it).
 */
function lineIndex(text: string): LineIndex {
  const first = new Map<string, number>();
  for (const { path, line } of placements(text)) {
    const key = pathKey(path);
    if (!first.has(key)) first.set(key, line);
  }
  return (path) => {
    const want = path.map(String);
    for (let depth = want.length; depth > 0; depth--) {
      const line = first.get(pathKey(want.slice(0, depth)));
      if (line !== undefined) return line;
    }
    return undefined;
  };
}

/** The line of `path` in `text` (one scan; documents keep an index for their many look-ups). */
export function locate(text: string, path: FieldPath): number | undefined {
  return lineIndex(text)(path);
}

/**
 * Where a path too deep to keep is written: the first key or header spelling all of it (a long
 * dotted key or header), else the deepest one on its way (the key whose inline value goes on).
 */
function lineOfDeepPath(text: string, path: FieldPath): number | undefined {
  const want = path.map(String);
  let best: Placement | undefined;
  for (const placed of placements(text)) {
    let shared = 0;
    while (shared < placed.path.length && shared < want.length && placed.path[shared] === want[shared]) shared++;
    if (shared === want.length) return placed.line;
    if (shared === placed.path.length && shared > (best?.path.length ?? 0)) best = placed;
  }
  return best?.line;
}

/** Small typed readers that never throw: validators report what is wrong themselves. */
export const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (t: Table | undefined, k: string): string | undefined =>
  t && typeof t[k] === 'string' ? (t[k] as string) : undefined;
export const tables = (t: Table | undefined, k: string): Table[] =>
  t && Array.isArray(t[k]) ? (t[k] as unknown[]).filter(isTable) : [];
export const table = (t: Table | undefined, k: string): Table | undefined =>
  t && isTable(t[k]) ? (t[k] as Table) : undefined;
