/**
 * Reading what coqc says (pure: no I/O). coqc reports an error as
 * `File "F", line L, characters A-B:` followed by the message, where A and B are byte offsets from
 * the start of line L (OCaml strings are bytes), so a column needs the line's bytes to become a
 * one-based character position. `Print Assumptions` prints "Closed under the global context" or
 * headed groups ("Axioms:", and others for disabled guard, positivity or universe checking); only
 * the axioms group can ever be accepted by a package, every other group blocks.
 */

/** One-based line and column (in Unicode code points) of a place in a file. */
export interface LineColumn {
  line: number;
  column: number;
}

/** Code points in `bytes[0, end)` decoded as UTF-8: a continuation byte (10xxxxxx) starts nothing. */
function codePointsBefore(bytes: Uint8Array, start: number, end: number): number {
  let count = 0;
  for (let i = start; i < end && i < bytes.length; i++) if ((bytes[i]! & 0xc0) !== 0x80) count++;
  return count;
}

/** Byte offset where one-based line `line` starts, or undefined when the file has fewer lines. */
export function lineStart(bytes: Uint8Array, line: number): number | undefined {
  if (line < 1) return undefined;
  let at = 0;
  for (let l = 1; l < line; l++) {
    const nl = bytes.indexOf(0x0a, at);
    if (nl < 0) return undefined;
    at = nl + 1;
  }
  return at;
}

/**
 * coqc's `line L, characters A-...` to a one-based line and column: A counts bytes from the start
 * of line L; the column counts code points, so `é` (two bytes) is one column. An offset past the
 * end of the line is clamped to the line's end (coqc may point at the newline itself).
 */
export function coqLocation(bytes: Uint8Array, line: number, byteInLine: number): LineColumn | undefined {
  const start = lineStart(bytes, line);
  if (start === undefined) return undefined;
  const nl = bytes.indexOf(0x0a, start);
  const end = nl < 0 ? bytes.length : nl;
  const at = Math.min(start + Math.max(0, byteInLine), end);
  return { line, column: codePointsBefore(bytes, start, at) + 1 };
}

/** An absolute byte offset into a file to a one-based line and column (code points). */
export function byteOffsetToLineColumn(bytes: Uint8Array, offset: number): LineColumn {
  const at = Math.max(0, Math.min(offset, bytes.length));
  let line = 1;
  let lineAt = 0;
  for (let i = 0; i < at; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      lineAt = i + 1;
    }
  }
  return { line, column: codePointsBefore(bytes, lineAt, at) + 1 };
}

export interface CoqError {
  /** The path as coqc printed it. */
  file: string;
  line: number;
  /** Byte offsets from the start of `line`. */
  startByte: number;
  endByte: number;
  severity: 'error' | 'warning';
  message: string;
}

const HEADER = /^File "([^"]*)", line (\d+), characters (\d+)-(\d+):\s*$/;

/**
 * Every located message in coqc's output: the header line, then `Error:` or `Warning:` and the
 * message lines up to the next header. Messages without a location (e.g. a missing file) are not
 * returned: callers treat a non-zero exit without a located error as unlocated.
 */
export function parseCoqMessages(output: string): CoqError[] {
  const lines = output.split(/\r?\n/);
  const found: CoqError[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = HEADER.exec(lines[i]!);
    if (!m) continue;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !HEADER.test(lines[j]!); j++) body.push(lines[j]!);
    const text = body.join('\n').trim();
    const severity = /^Warning:/.test(text) ? 'warning' : 'error';
    found.push({
      file: m[1]!,
      line: Number(m[2]),
      startByte: Number(m[3]),
      endByte: Number(m[4]),
      severity,
      message: text
        .replace(/^(Error|Warning):\s*/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    });
    i = j - 1;
  }
  return found;
}

/** The first located error, if any. */
export function firstCoqError(output: string): CoqError | undefined {
  return parseCoqMessages(output).find((m) => m.severity === 'error');
}

/**
 * The module field a module-typing error names: coqc says "Signature components for field F do
 * not match" (or "... for label F ...") when a candidate's field has another type than the module
 * type's, and "The field F is missing in M" when it has none.
 */
export function mismatchedField(message: string): { field: string; kind: 'mismatch' | 'missing' } | undefined {
  const mismatch = /Signature components for (?:field|label) ([A-Za-z_][A-Za-z0-9_']*) do not match/.exec(message);
  if (mismatch) return { field: mismatch[1]!, kind: 'mismatch' };
  const missing = /The field ([A-Za-z_][A-Za-z0-9_']*) is missing/.exec(message);
  if (missing) return { field: missing[1]!, kind: 'missing' };
  return undefined;
}

export interface Assumptions {
  /** "Closed under the global context". */
  closed: boolean;
  /** Names under "Axioms:". */
  axioms: string[];
  /** Any other group (e.g. "... assumed to be guarded", type-in-type), as its heading: never acceptable. */
  otherGroups: string[];
  /** Text that matched neither form: the output is not understood, which blocks. */
  unparsed: boolean;
}

/**
 * Parses one `Print Assumptions` output. Groups start with a heading line ending in `:` at column
 * 0; inside a group an entry starts at column 0 with `name : type` (or `name` alone, its type on
 * indented lines starting with `:`) and continues on indented lines.
 */
export function parseAssumptions(text: string): Assumptions {
  const body = text.replace(/\r\n/g, '\n').trim();
  if (body === 'Closed under the global context') return { closed: true, axioms: [], otherGroups: [], unparsed: false };
  const result: Assumptions = { closed: false, axioms: [], otherGroups: [], unparsed: body === '' };
  let group: string | undefined;
  for (const line of body.split('\n')) {
    if (line.trim() === '') continue;
    if (/^\S/.test(line) && /:\s*$/.test(line) && !/ : /.test(line)) {
      group = line.trim().replace(/:\s*$/, '');
      if (group !== 'Axioms') result.otherGroups.push(group);
      continue;
    }
    if (group === undefined) {
      result.unparsed = true;
      continue;
    }
    if (/^\s/.test(line)) continue; // the continuation of an entry's type
    // coqc lists a fixpoint or inductive accepted without its kernel check among the axioms, as
    // `NAME is assumed to be guarded.` (or positive): never an acceptable axiom.
    const unchecked = /^(\S+) is assumed to be (\w+)/.exec(line);
    if (unchecked) {
      result.otherGroups.push(`${unchecked[1]} is assumed to be ${unchecked[2]}`);
      continue;
    }
    const entry = /^(\S+?)(?:\s+:.*)?$/.exec(line);
    if (entry && group === 'Axioms') result.axioms.push(entry[1]!);
    else if (entry) result.otherGroups.push(`${group}: ${entry[1]}`);
  }
  if (!result.axioms.length && !result.otherGroups.length) result.unparsed = true;
  return result;
}

/** A forbidden construct in a candidate's source, located. */
export interface ForbiddenUse {
  token: string;
  /** Why it is refused. */
  reason: string;
  /** UTF-16 index into the source text. */
  index: number;
  /** `escape` leaves a statement unproved; `subvert` changes what the checker or extraction does. */
  kind: 'escape' | 'subvert';
}

const ESCAPES: Array<[RegExp, string]> = [
  [/\bAdmitted\b/g, 'leaves a proof unfinished'],
  [/\badmit\b/g, 'leaves a goal unproved'],
  [/\bgive_up\b/g, 'leaves a goal unproved'],
  [/\b(?:Axiom|Axioms|Conjecture|Conjectures|Parameter|Parameters)\b/g, 'assumes a statement without proof'],
];

const SUBVERSIONS: Array<[RegExp, string]> = [
  [/\bDeclare\s+ML\s+Module\b/g, 'loads native code into the checker'],
  [/\bDeclare\s+Module\b/g, 'assumes a module without providing it'],
  [/\bUnset\s+(?:Guard|Positivity|Universe)\s+Checking\b/g, 'disables a kernel check'],
  [/\bTyping\s+Flags\b/g, 'changes kernel checks'],
  [/\bbypass_check\b/g, 'disables a kernel check'],
  [/\bExtract(?:ion)?\b/g, 'changes or runs extraction, which the profile owns'],
  // Only as commands, so identifiers like `Drop` pass: at a sentence start (a line start, or after a
  // period, brace or bullet), behind any control prefixes (`Time`, `Timeout 5`, `Fail`, ...) and
  // attributes, all of which still run the command.
  [
    /(?<=(?:^|[.{}]|[-+*])\s*(?:(?:Time|Fail|Succeed|Instructions|Profile|Timeout\s+\d+|Redirect|#\[[^\]]*\]|[-+*]+)\s*)*)(?:Redirect|Load|Cd|Drop)\b/gm,
    'reads or writes files outside the checked source',
  ],
];

/**
 * Replaces comments (nested `(* *)`) and string literals (`""` escapes a quote) by spaces, keeping
 * every index, so keywords are only found in code. As coqc's lexer does, a string inside a comment
 * is lexed too: `*)` or `(*` inside it neither ends nor opens a comment (`(* "*)" *)` is one comment).
 */
export function blankCommentsAndStrings(source: string): string {
  const out = source.split('');
  let depth = 0;
  let inString = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const next = source[i + 1];
    if (inString) {
      if (c === '"' && next === '"') {
        out[i] = ' ';
        out[i + 1] = ' ';
        i++;
        continue;
      }
      if (c === '"') inString = false;
      if (c !== '\n') out[i] = ' ';
      continue;
    }
    if (c === '(' && next === '*') {
      depth++;
      out[i] = ' ';
      out[i + 1] = ' ';
      i++;
      continue;
    }
    if (depth > 0 && c === '*' && next === ')') {
      depth--;
      out[i] = ' ';
      out[i + 1] = ' ';
      i++;
      continue;
    }
    if (c === '"') {
      // In code or in a comment alike: a string runs to its closing quote.
      inString = true;
      out[i] = ' ';
      continue;
    }
    if (depth > 0 && c !== '\n') out[i] = ' ';
  }
  return out.join('');
}

/** Every forbidden construct in a candidate's source, in source order. */
export function scanCandidate(source: string): ForbiddenUse[] {
  const code = blankCommentsAndStrings(source);
  const found: ForbiddenUse[] = [];
  for (const [kind, table] of [
    ['escape', ESCAPES],
    ['subvert', SUBVERSIONS],
  ] as const) {
    for (const [re, reason] of table) {
      for (const m of code.matchAll(re))
        found.push({ token: m[0].replace(/\s+/g, ' '), reason, index: m.index!, kind });
    }
  }
  return found.sort((a, b) => a.index - b.index);
}

/** UTF-16 index into a string to a one-based line and column (code points). */
export function indexToLineColumn(text: string, index: number): LineColumn {
  const before = text.slice(0, Math.max(0, index));
  const lines = before.split('\n');
  return { line: lines.length, column: [...lines[lines.length - 1]!].length + 1 };
}

/**
 * Where a name is declared in a Coq source (`Lemma NAME`, `Definition NAME`, ...), after comments
 * and strings are blanked: the first declaration, as a UTF-16 index.
 */
export function declarationIndex(source: string, name: string): number | undefined {
  const code = blankCommentsAndStrings(source);
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(
    `\\b(?:Lemma|Theorem|Definition|Fact|Remark|Corollary|Proposition|Example|Fixpoint|Let|Program\\s+Definition|Instance)\\s+${escaped}(?![A-Za-z0-9_'])`,
  );
  const m = re.exec(code);
  return m ? m.index : undefined;
}

/** One line of the observation driver: `OBS<TAB>name<TAB>expected<TAB>observed`. */
export function parseObservationLines(
  stdout: string,
): Array<{ name: string; expected: string; observed: string; pass: boolean }> {
  const out: Array<{ name: string; expected: string; observed: string; pass: boolean }> = [];
  for (const line of stdout.split('\n')) {
    const parts = line.split('\t');
    if (parts[0] !== 'OBS' || parts.length !== 4) continue;
    out.push({ name: parts[1]!, expected: parts[2]!, observed: parts[3]!, pass: parts[2] === parts[3] });
  }
  return out;
}
