/**
 * Text splicing over TOML: the tools that write into a user's document (witness, migrate) change
 * only the bytes they mean to change, so comments, blank lines, indentation, key order and line
 * endings survive. Nothing here re-serialises a document.
 *
 * `scanToml` walks the text once and records where every table header and every key's value
 * sits (values may span lines: arrays, multi-line strings). Paths use the data's shape: array of
 * tables entries carry their index (`['claim', 2, 'self_verify']`), resolved the way TOML does
 * (a header names the latest entry of every array of tables on its way).
 *
 * The input is assumed to be valid TOML (callers parse it first); the scanner is lenient, and
 * callers re-parse the spliced text and compare it with the intended data before writing.
 */
import type { FieldPath } from './toml.js';

export class SpliceError extends Error {}

export interface TableSpan {
  /** Resolved path, indices as strings: `['claim', '0', 'self_verify']`. */
  path: string[];
  array: boolean;
  /** 0-based line index of the header. */
  headerLine: number;
  /** 0-based index of the next header line (or the line count). */
  nextHeader: number;
  /** 0-based index of the last line of the table's own body (the header when the body is empty). */
  lastLine: number;
}

export interface KeySpan {
  /** Resolved path of the key, including the table's path. */
  path: string[];
  /** 0-based line index of the key. */
  line: number;
  /** Offsets into the whole text. */
  valueStart: number;
  valueEnd: number;
}

export interface Scan {
  lines: string[];
  /** Offset of each line's first character. */
  offsets: number[];
  tables: TableSpan[];
  keys: KeySpan[];
  eol: '\n' | '\r\n';
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const startsWith = (a: readonly string[], prefix: readonly string[]) =>
  prefix.length <= a.length && prefix.every((x, i) => x === a[i]);
const norm = (path: FieldPath) => path.map(String);

export function scanToml(text: string): Scan {
  const lines = text.split('\n');
  const offsets: number[] = [];
  let at = 0;
  for (const l of lines) {
    offsets.push(at);
    at += l.length + 1;
  }
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = offsets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (offsets[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const tables: TableSpan[] = [];
  const keys: KeySpan[] = [];
  const arrays = new Map<string, number>();
  let current: string[] = [];
  let i = 0;
  while (i < text.length) {
    i = skipInline(text, i);
    const c = text[i];
    if (c === undefined) break;
    if (c === '\n' || c === '\r') {
      i = nextLine(text, i);
      continue;
    }
    if (c === '#') {
      i = nextLine(text, i);
      continue;
    }
    if (c === '[') {
      const array = text[i + 1] === '[';
      const { parts, end } = readKey(text, skipInline(text, i + (array ? 2 : 1)));
      const close = skipInline(text, end);
      const names = parts;
      const out: string[] = [];
      names.forEach((name, k) => {
        out.push(name);
        const key = out.join('\u0000');
        const last = k === names.length - 1;
        if (last && array) {
          const n = arrays.get(key) ?? 0;
          arrays.set(key, n + 1);
          out.push(String(n));
        } else if (arrays.has(key)) out.push(String(arrays.get(key)! - 1));
      });
      current = out;
      tables.push({ path: out, array, headerLine: lineOf(i), nextHeader: -1, lastLine: -1 });
      i = nextLine(text, close);
      continue;
    }
    const { parts, end } = readKey(text, i);
    let j = skipInline(text, end);
    if (text[j] !== '=' || parts.length === 0) {
      // Not a key line we understand: skip it (the document parsed, so this should not happen).
      i = nextLine(text, i);
      continue;
    }
    j = skipInline(text, j + 1);
    const valueEnd = skipValue(text, j);
    keys.push({ path: [...current, ...parts], line: lineOf(i), valueStart: j, valueEnd });
    i = nextLine(text, valueEnd);
  }
  // Each table's body ends at the next header; its last line skips trailing blank lines and a
  // trailing comment block set apart by a blank line (a banner that introduces the next table).
  tables.forEach((t, k) => {
    t.nextHeader = k + 1 < tables.length ? tables[k + 1]!.headerLine : lines.length;
    let last = t.nextHeader - 1;
    const blank = (n: number) => lines[n]!.trim() === '';
    const comment = (n: number) => lines[n]!.trim().startsWith('#');
    while (last > t.headerLine && blank(last)) last--;
    let top = last;
    while (top > t.headerLine && comment(top)) top--;
    // A comment block directly under the body (no blank line between) stays with the table.
    if (top < last && top > t.headerLine && blank(top)) {
      last = top;
      while (last > t.headerLine && blank(last)) last--;
    }
    t.lastLine = last;
  });
  return { lines, offsets, tables, keys, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

function skipInline(text: string, i: number): number {
  while (text[i] === ' ' || text[i] === '\t') i++;
  return i;
}

function nextLine(text: string, i: number): number {
  const n = text.indexOf('\n', i);
  return n < 0 ? text.length : n + 1;
}

/** A dotted key (bare, "basic" or 'literal' parts) starting at i. */
function readKey(text: string, i: number): { parts: string[]; end: number } {
  const parts: string[] = [];
  for (;;) {
    i = skipInline(text, i);
    const c = text[i];
    if (c === '"') {
      const end = endBasic(text, i);
      parts.push(
        JSON.parse(
          text.slice(i, end).replace(/\\U([0-9a-fA-F]{8})/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16))),
        ) as string,
      );
      i = end;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      parts.push(text.slice(i + 1, end));
      i = end + 1;
    } else {
      const m = /^[A-Za-z0-9_-]+/.exec(text.slice(i, i + 256));
      if (!m) return { parts, end: i };
      parts.push(m[0]);
      i += m[0].length;
    }
    const j = skipInline(text, i);
    if (text[j] !== '.') return { parts, end: i };
    i = j + 1;
  }
}

function endBasic(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length && text[j] !== '"' && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
  return j + 1;
}

/** The offset just after the TOML value starting at i (strings, arrays, inline tables, scalars). */
function skipValue(text: string, i: number): number {
  if (text.startsWith('"""', i)) {
    let j = i + 3;
    while (j < text.length && !text.startsWith('"""', j)) j += text[j] === '\\' ? 2 : 1;
    j += 3;
    while (text[j] === '"' && j - i < text.length) j++; // up to two quotes may end the content
    return j;
  }
  if (text.startsWith("'''", i)) {
    let j = text.indexOf("'''", i + 3);
    if (j < 0) return text.length;
    j += 3;
    while (text[j] === "'") j++;
    return j;
  }
  const c = text[i];
  if (c === '"') return endBasic(text, i);
  if (c === "'") {
    const j = text.indexOf("'", i + 1);
    return j < 0 ? text.length : j + 1;
  }
  if (c === '[' || c === '{') {
    const close = c === '[' ? ']' : '}';
    let j = i + 1;
    for (;;) {
      while (j < text.length && /[\s,]/.test(text[j]!)) j++;
      if (text[j] === '#') {
        j = nextLine(text, j);
        continue;
      }
      if (j >= text.length) return j;
      if (text[j] === close) return j + 1;
      if (c === '{') {
        const { end } = readKey(text, j);
        j = skipInline(text, end);
        if (text[j] === '=') j = skipInline(text, j + 1);
      }
      const next = skipValue(text, j);
      j = next > j ? next : j + 1;
    }
  }
  // Scalars: numbers, booleans, dates (a date-time may hold one space between date and time).
  const m = /^(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?|[^\s,\]}#]+)/.exec(
    text.slice(i, i + 128),
  );
  return i + (m ? m[0].length : 0);
}

export function findTable(scan: Scan, path: FieldPath): TableSpan | undefined {
  const want = norm(path);
  return scan.tables.find((t) => same(t.path, want));
}

export function findKey(scan: Scan, path: FieldPath): KeySpan | undefined {
  const want = norm(path);
  return scan.keys.find((k) => same(k.path, want));
}

/** The last line of a table together with the sub-tables that follow it directly. */
function regionEnd(scan: Scan, table: TableSpan): number {
  let k = scan.tables.indexOf(table);
  let last = table.lastLine;
  while (k + 1 < scan.tables.length && startsWith(scan.tables[k + 1]!.path, table.path)) {
    k++;
    last = scan.tables[k]!.lastLine;
  }
  return last;
}

const indentOf = (line: string) => /^[ \t]*/.exec(line)![0];

/** Basic-string TOML literal for any string (escapes quotes, backslashes and control characters). */
export function tomlString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A key as it must be written in TOML (bare when it can be). */
const tomlKey = (k: string) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k));

/** The header name for a resolved path: indices dropped, `claim.self_verify.watched_fail`. */
const headerName = (path: FieldPath) =>
  path
    .filter((p): p is string => typeof p === 'string')
    .map(tomlKey)
    .join('.');

/**
 * Sets `key` in the table at `tablePath` to the TOML literal `value`: replaces the value in place
 * when the key exists (keeping its comment), else adds `key = value` after the table's last body
 * line, indented like the table's keys. `[]` is the root table.
 */
export function setValue(text: string, tablePath: FieldPath, key: string, value: string): string {
  const scan = scanToml(text);
  const existing = findKey(scan, [...tablePath, key]);
  if (existing) return text.slice(0, existing.valueStart) + value + text.slice(existing.valueEnd);
  if (tablePath.length === 0) {
    const first = scan.tables[0]?.headerLine ?? scan.lines.length;
    return insertLines(text, scan, first - 1, [`${tomlKey(key)} = ${value}`], '');
  }
  const table = findTable(scan, tablePath);
  if (!table) throw new SpliceError(`no [${headerName(tablePath)}] table to set \`${key}\` in`);
  const keyLine = scan.keys.find(
    (k) =>
      k.path.length === table.path.length + 1 &&
      startsWith(k.path, table.path) &&
      k.line > table.headerLine &&
      k.line < table.nextHeader,
  );
  const indent = indentOf(scan.lines[keyLine?.line ?? table.headerLine]!);
  return insertLines(text, scan, table.lastLine, [`${tomlKey(key)} = ${value}`], indent);
}

/** Inserts `lines` (each prefixed with `indent`) after 0-based line `after` (-1: at the start). */
function insertLines(text: string, scan: Scan, after: number, lines: string[], indent: string): string {
  const eol = scan.eol;
  const block = lines.map((l) => (l === '' ? '' : indent + l) + eol).join('');
  if (after < 0) return block + text;
  const lineText = scan.lines[after]!;
  const endOfLine = scan.offsets[after]! + lineText.length; // at the '\n' (or text end)
  if (endOfLine >= text.length) {
    // The last line has no newline: give it one first.
    return text + (lineText.endsWith('\r') ? '\n' : eol) + block.slice(0, -eol.length);
  }
  return text.slice(0, endOfLine + 1) + block + text.slice(endOfLine + 1);
}

/**
 * Inserts a new sub-table `[<headerName(path)>]` with the given `key = value` lines after the
 * parent table and the sub-tables that follow it, separated by one blank line. The parent must
 * be written as a header; the sub-table must not exist yet.
 */
export function insertTable(text: string, path: FieldPath, entries: [string, string][]): string {
  const scan = scanToml(text);
  if (findTable(scan, path) || findKey(scan, path)) throw new SpliceError(`[${headerName(path)}] already exists`);
  const parentPath = path.slice(0, -1);
  const parent = findTable(scan, parentPath);
  if (!parent) throw new SpliceError(`no [${headerName(parentPath)}] table header to add [${headerName(path)}] under`);
  const end = regionEnd(scan, parent);
  const parentIndent = indentOf(scan.lines[parent.headerLine]!);
  const indent = parentIndent.length > 0 ? `${parentIndent}  ` : '';
  const lines = ['', `[${headerName(path)}]`, ...entries.map(([k, v]) => `${tomlKey(k)} = ${v}`)];
  return insertLines(text, scan, end, lines, indent);
}

/**
 * Renames the top-level table `from` (and the headers of its sub-tables) to `to`, keeping each
 * header's indentation and trailing comment. The table must be written as a header.
 */
export function renameTable(text: string, from: string, to: string): string {
  const scan = scanToml(text);
  const hits = scan.tables.filter((t) => t.path[0] === from);
  if (!hits.some((t) => t.path.length === 1)) throw new SpliceError(`no [${tomlKey(from)}] table header to rename`);
  if (scan.keys.some((k) => k.path[0] === from && k.line < (scan.tables[0]?.headerLine ?? Infinity)))
    throw new SpliceError(`\`${from}\` is also set by a dotted key`);
  let out = text;
  // Right to left so earlier offsets stay valid.
  for (const t of [...hits].reverse()) {
    const start = scan.offsets[t.headerLine]!;
    const line = scan.lines[t.headerLine]!;
    const m = /^([ \t]*\[\[?[ \t]*)("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)/.exec(line);
    if (!m) throw new SpliceError(`cannot read the header on line ${t.headerLine + 1}`);
    out = out.slice(0, start + m[1]!.length) + tomlKey(to) + out.slice(start + m[1]!.length + m[2]!.length);
  }
  return out;
}

/**
 * Renames the key at `path` (a bare key written on its own line, `statement = ...`) to the bare
 * key `to`, keeping its value, alignment and comment. Dotted or quoted spellings are left to a human.
 */
export function renameKey(text: string, path: FieldPath, to: string): string {
  const scan = scanToml(text);
  const key = findKey(scan, path);
  const from = String(path.at(-1));
  if (!key) throw new SpliceError(`no \`${from}\` key to rename`);
  const line = scan.lines[key.line]!;
  const m = /^[A-Za-z0-9_-]+$/.test(from) ? new RegExp(`^([ \\t]*)${from}(?=[ \\t]*=)`).exec(line) : null;
  if (!m) throw new SpliceError(`\`${from}\` on line ${key.line + 1} is not a bare key on its own line`);
  const start = scan.offsets[key.line]! + m[1]!.length;
  // A shorter name is padded so an aligned `=` stays where it was.
  const spaced = line[m[0].length] === ' ' || line[m[0].length] === '\t';
  const name = spaced && to.length < from.length ? to.padEnd(from.length) : tomlKey(to);
  return text.slice(0, start) + name + text.slice(start + from.length);
}

/**
 * Removes the key at `path`, a bare key whose value ends on its own line, with that line's comment
 * and the comment lines right below it (up to the next blank, key or header line): they explain
 * the key, and left behind they would explain nothing, or the next key wrongly. A key sharing its
 * line with anything else is left to a human.
 */
export function removeKey(text: string, path: FieldPath): string {
  const scan = scanToml(text);
  const key = findKey(scan, path);
  const name = String(path.at(-1));
  if (!key) throw new SpliceError(`no \`${name}\` key to remove`);
  const line = scan.lines[key.line]!;
  if (!new RegExp(`^[ \\t]*${name.replace(/[^A-Za-z0-9_-]/g, '\\$&')}[ \\t]*=`).test(line))
    throw new SpliceError(`\`${name}\` on line ${key.line + 1} is not a bare key on its own line`);
  let last = scan.lines.findIndex((_, i) => i >= key.line && scan.offsets[i]! + scan.lines[i]!.length >= key.valueEnd);
  if (last < 0) last = key.line;
  if (!/^\s*(#.*)?\r?$/.test(text.slice(key.valueEnd, scan.offsets[last]! + scan.lines[last]!.length)))
    throw new SpliceError(`\`${name}\` on line ${key.line + 1} shares its line with another value`);
  while (last + 1 < scan.lines.length && /^\s*#/.test(scan.lines[last + 1]!)) last++;
  const start = scan.offsets[key.line]!;
  const end = last + 1 < scan.lines.length ? scan.offsets[last + 1]! : text.length;
  return text.slice(0, start) + text.slice(end);
}

/**
 * Inserts comment lines above 0-based lines of the text, each indented like the line it
 * annotates (`-1`: at the top). Comments change no data, so callers may add them last.
 */
export function insertComments(text: string, above: ReadonlyMap<number, readonly string[]>): string {
  const scan = scanToml(text);
  let out = text;
  for (const line of [...above.keys()].sort((a, b) => b - a)) {
    const target = line >= 0 && line < scan.lines.length ? line : -1;
    const indent = target < 0 ? '' : indentOf(scan.lines[target]!);
    const comments = above.get(line)!.map((c) => `# ${c.replace(/[\r\n]+/g, ' ')}`);
    out = insertLines(out, scan, target - 1, comments, indent);
  }
  return out;
}

/** One changed region of a line diff: 1-based line numbers in the old and new text. */
export interface Hunk {
  oldLine: number;
  newLine: number;
  removed: string[];
  added: string[];
}

/**
 * Line diff (Myers, O((N+M)·D)): splices change few lines, so D is small. Used for previews.
 */
export function lineDiff(a: string[], b: string[]): Hunk[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const v = new Map<number, number>([[1, 0]]);
  const trace: Map<number, number>[] = [];
  outer: for (let d = 0; d <= max; d++) {
    trace.push(new Map(v));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && (v.get(k - 1) ?? -1) < (v.get(k + 1) ?? -1)) ? v.get(k + 1)! : v.get(k - 1)! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v.set(k, x);
      if (x >= n && y >= m) break outer;
    }
  }
  // Backtrack into a list of edit operations.
  const ops: ('=' | '-' | '+')[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0 && (x > 0 || y > 0); d--) {
    const vd = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && (vd.get(k - 1) ?? -1) < (vd.get(k + 1) ?? -1)) ? k + 1 : k - 1;
    const prevX = vd.get(prevK) ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push('=');
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) {
        ops.push('+');
        y--;
      } else {
        ops.push('-');
        x--;
      }
    }
  }
  while (x > 0 && y > 0) {
    ops.push('=');
    x--;
    y--;
  }
  ops.reverse();
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  let open: Hunk | undefined;
  for (const op of ops) {
    if (op === '=') {
      open = undefined;
      i++;
      j++;
      continue;
    }
    if (!open) {
      open = { oldLine: i + 1, newLine: j + 1, removed: [], added: [] };
      hunks.push(open);
    }
    if (op === '-') open.removed.push(a[i++]!);
    else open.added.push(b[j++]!);
  }
  return hunks;
}
