/**
 * A strict JSON text parser (RFC 8259) for model requests and manifests that arrive as text (core:
 * rules/compare/lib and the config loader both read through it). `JSON.parse` would do for the values, but
 * it silently keeps the last of two equal member names and forgets how numbers were written; the
 * request rules need both: a duplicate key anywhere is invalid, and `schema_version` and
 * `max_contexts` must be written in integer form (`1`, not `1.0` or `1e0`).
 *
 * The value it returns is plain data, as `JSON.parse` would make it (a member named `__proto__` is an
 * own member, never the prototype). Beside it, `members(obj)` gives each object's members in document order with their
 * line, the source text of number values, and a `duplicate` flag on every repeat of a name; the object
 * itself keeps the first occurrence's value. `duplicates()` lists every repeat in the text, including
 * those inside values that no schema reads, so all of them can be reported. Syntax errors stop the parse with one issue naming the
 * enclosing JSON path, the line and the column.
 */
import type { Issue } from '../errors.js';
import { hasLoneSurrogate } from './utf16.js';
import { indexPath, memberPath } from './json-path.js';

export interface JsonMember {
  key: string;
  /** True on the second and later occurrences of `key` in the same object. */
  duplicate: boolean;
  /** 1-based line of the member name. */
  line: number;
  /** The value's source text when it is a number (`1`, `1.0`, `1e0`). */
  numberText?: string;
}

/** A repeated member name, wherever it occurs in the text (also inside values no schema reads). */
export interface JsonDuplicate {
  key: string;
  /** JSON path of the repeated member. */
  path: string;
  /** Member and element indices from the root, in document order (for ordering issues). */
  pos: number[];
  line: number;
}

/** Document-order facts about objects parsed from text; `undefined` for objects not made by the parser. */
export interface JsonTextSource {
  members(obj: object): readonly JsonMember[] | undefined;
  /** Every repeated member name in the text, in document order. */
  duplicates(): readonly JsonDuplicate[];
}

export interface ParsedJsonText {
  /** Absent when the text is not JSON. */
  value?: unknown;
  issues: Issue[];
  source: JsonTextSource;
}

/**
 * Nesting deeper than this is refused rather than risking the stack. A valid request nests five
 * containers deep (`$.before.rules[0].inputs`), so this only ever refuses invalid requests.
 */
export const MAX_JSON_DEPTH = 64;

const SIMPLE_ESCAPES = new Map([
  ['"', '"'],
  ['\\', '\\'],
  ['/', '/'],
  ['b', '\b'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
]);
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

export function parseJsonText(text: string): ParsedJsonText {
  // A Map, not a WeakMap: it lives exactly as long as the parse result, and thousands of WeakMap
  // keys make every garbage collection pay for ephemeron tracing.
  const meta = new Map<object, JsonMember[]>();
  const duplicates: JsonDuplicate[] = [];
  const source: JsonTextSource = { members: (obj) => meta.get(obj), duplicates: () => duplicates };
  const p = new Parser(text, meta, duplicates);
  try {
    if (text.charCodeAt(0) === 0xfeff)
      throw p.fail('the text starts with a byte order mark (U+FEFF); save it without one');
    p.ws();
    if (p.i >= text.length) throw p.fail('expected a JSON value, got the end of the text');
    const value = p.value(0);
    p.ws();
    if (p.i < text.length) throw p.fail(`expected the end of the text after the value, got ${p.shown()}`);
    return { value, issues: [], source };
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    const { line, column } = p.position(e.offset);
    return {
      issues: [{ path: e.path, line, message: `Invalid JSON at line ${line}, column ${column}: ${e.message}` }],
      source,
    };
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

class Parser {
  i = 0;
  /** The current line (1-based): newlines only occur in whitespace, which `ws` counts. */
  line = 1;
  /**
   * Where the parser is, as member names and element indices, so a syntax error can name its JSON
   * path without building a path string for every value parsed.
   */
  private readonly at: Array<string | number> = [];
  /** The same places as member and element indices (a member's index counts repeats). */
  private readonly order: number[] = [];

  constructor(
    private readonly text: string,
    private readonly meta: Map<object, JsonMember[]>,
    private readonly duplicates: JsonDuplicate[],
  ) {}

  ws(): void {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(this.i);
      if (c === 0x20 || c === 0x09 || c === 0x0d) this.i++;
      else if (c === 0x0a) {
        this.i++;
        this.line++;
      } else return;
    }
  }

  value(depth: number): unknown {
    const c = this.text.charCodeAt(this.i);
    if (c === 0x7b) return this.object(depth + 1);
    if (c === 0x5b) return this.array(depth + 1);
    if (c === QUOTE) return this.string();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return Number(this.number());
    for (const [word, v] of LITERALS) {
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    throw this.fail(`expected a JSON value, got ${this.shown()}`);
  }

  /** The number's source text, left for the caller to convert. */
  number(): string {
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.text);
    if (!m) throw this.fail(`expected a number, got ${this.shown()}`);
    this.i += m[0].length;
    const next = this.text.charCodeAt(this.i);
    if (
      (next >= 0x30 && next <= 0x39) ||
      next === 0x2e ||
      next === 0x65 ||
      next === 0x45 ||
      next === 0x2b ||
      next === 0x2d
    ) {
      throw this.fail(`malformed number ${JSON.stringify(m[0] + this.text[this.i])}`);
    }
    return m[0];
  }

  object(depth: number): object {
    if (depth > MAX_JSON_DEPTH) throw this.fail(`nested more than ${MAX_JSON_DEPTH} levels deep`);
    this.i++; // {
    const obj: Record<string, unknown> = {};
    const members: JsonMember[] = [];
    this.meta.set(obj, members);
    this.ws();
    if (this.text.charCodeAt(this.i) === 0x7d) {
      this.i++;
      return obj;
    }
    for (;;) {
      if (this.text.charCodeAt(this.i) !== QUOTE)
        throw this.fail(`expected a member name in double quotes, got ${this.shown()}`);
      const line = this.line;
      const key = this.string();
      this.at.push(key);
      this.order.push(members.length);
      this.ws();
      if (this.text.charCodeAt(this.i) !== 0x3a)
        throw this.fail(`expected \`:\` after the member name, got ${this.shown()}`);
      this.i++;
      this.ws();
      const c = this.text.charCodeAt(this.i);
      let value: unknown;
      let numberText: string | undefined;
      if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
        numberText = this.number();
        value = Number(numberText);
      } else value = this.value(depth);
      const duplicate = Object.hasOwn(obj, key);
      if (duplicate) this.duplicates.push({ key, path: this.path(), pos: [...this.order], line });
      this.at.pop();
      this.order.pop();
      members.push(numberText === undefined ? { key, duplicate, line } : { key, duplicate, line, numberText });
      // `__proto__` must become an own member, never the object's prototype.
      if (!duplicate) {
        if (key === '__proto__')
          Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
        else obj[key] = value;
      }
      this.ws();
      const d = this.text.charCodeAt(this.i);
      if (d === 0x2c) {
        this.i++;
        this.ws();
        continue;
      }
      if (d === 0x7d) {
        this.i++;
        return obj;
      }
      throw this.fail(`expected \`,\` or \`}\` in the object, got ${this.shown()}`);
    }
  }

  array(depth: number): unknown[] {
    if (depth > MAX_JSON_DEPTH) throw this.fail(`nested more than ${MAX_JSON_DEPTH} levels deep`);
    this.i++; // [
    const out: unknown[] = [];
    this.ws();
    if (this.text.charCodeAt(this.i) === 0x5d) {
      this.i++;
      return out;
    }
    for (;;) {
      this.at.push(out.length);
      this.order.push(out.length);
      out.push(this.value(depth));
      this.at.pop();
      this.order.pop();
      this.ws();
      const c = this.text.charCodeAt(this.i);
      if (c === 0x2c) {
        this.i++;
        this.ws();
        continue;
      }
      if (c === 0x5d) {
        this.i++;
        return out;
      }
      throw this.fail(`expected \`,\` or \`]\` in the array, got ${this.shown()}`);
    }
  }

  string(): string {
    const t = this.text;
    const start = this.i;
    this.i++; // opening quote
    let out = '';
    let run = this.i;
    let high = false;
    for (;;) {
      if (this.i >= t.length) throw this.fail('unterminated string', start);
      const c = t.charCodeAt(this.i);
      if (c === QUOTE) {
        out += t.slice(run, this.i);
        this.i++;
        break;
      }
      if (c < 0x20)
        throw this.fail(
          `control character U+${c.toString(16).toUpperCase().padStart(4, '0')} must be escaped inside a string`,
        );
      if (c >= 0xd800 && c <= 0xdfff) high = true;
      if (c !== BACKSLASH) {
        this.i++;
        continue;
      }
      out += t.slice(run, this.i);
      const e = t[this.i + 1];
      const simple = e === undefined ? undefined : SIMPLE_ESCAPES.get(e);
      if (simple !== undefined) {
        out += simple;
        this.i += 2;
      } else if (e === 'u') {
        const hex = t.slice(this.i + 2, this.i + 6);
        if (!/^[0-9A-Fa-f]{4}$/.test(hex)) throw this.fail('expected four hex digits after \\u');
        const u = parseInt(hex, 16);
        if (u >= 0xd800 && u <= 0xdfff) high = true;
        out += String.fromCharCode(u);
        this.i += 6;
      } else throw this.fail(`invalid escape ${JSON.stringify(`\\${e ?? ''}`)}`);
      run = this.i;
    }
    if (high && hasLoneSurrogate(out))
      throw this.fail('the string holds a lone surrogate, which is not a Unicode scalar value', start);
    return out;
  }

  shown(): string {
    if (this.i >= this.text.length) return 'the end of the text';
    const cp = this.text.codePointAt(this.i) ?? 0;
    return JSON.stringify(String.fromCodePoint(cp));
  }

  fail(message: string, offset = this.i): JsonSyntaxError {
    return new JsonSyntaxError(offset, this.path(), message);
  }

  private path(): string {
    let path = '$';
    for (const seg of this.at) path = typeof seg === 'number' ? indexPath(path, seg) : memberPath(path, seg);
    return path;
  }

  /** 1-based line and column (in code points) of a text offset, for error messages. */
  position(offset: number): { line: number; column: number } {
    let lineStart = 0;
    let line = 1;
    for (let k = 0; k < offset; k++) {
      if (this.text.charCodeAt(k) === 0x0a) {
        line++;
        lineStart = k + 1;
      }
    }
    return { line, column: [...this.text.slice(lineStart, offset)].length + 1 };
  }
}

const LITERALS = [
  ['true', true],
  ['false', false],
  ['null', null],
] as const;
