/**
 * What the acceptance verbs say: findings (ERROR / WARN / NOTE lines), verdicts and exit codes.
 * Every verb returns an `Outcome`; the CLI prints its lines (or its JSON) and exits with its code,
 * the MCP tools return the same JSON.
 */
import { pathText, type Doc, type FieldPath } from './toml.js';

export type Level = 'ERROR' | 'WARN' | 'NOTE';

export interface Finding {
  level: Level;
  file: string;
  message: string;
  /** Field path such as `claim[0].self_verify`, when the finding is about one field. */
  path?: string;
  line?: number;
}

export type Verdict = 'PASS' | 'FAIL' | 'INDETERMINATE' | 'PASS-PROSPECTIVE';

/**
 * Collects the findings about one document; `indeterminate` marks an unresolvable reference.
 * `list` only ever grows (callers may push onto it too): the counts tally the entries added since
 * they were last asked for, as validators ask after every claim and a package may hold thousands.
 */
export class Findings {
  readonly list: Finding[] = [];
  indeterminateReasons: string[] = [];
  private readonly tally: Record<Level, number> = { ERROR: 0, WARN: 0, NOTE: 0 };
  private tallied = 0;
  constructor(
    readonly file: string,
    private readonly doc?: Doc,
  ) {}
  private add(level: Level, message: string, path?: FieldPath): void {
    this.list.push({
      level,
      file: this.file,
      message: clip(message),
      ...(path ? { path: pathText(path), line: this.doc?.line(path) } : {}),
    });
  }
  error(message: string, path?: FieldPath): void {
    this.add('ERROR', message, path);
  }
  warn(message: string, path?: FieldPath): void {
    this.add('WARN', message, path);
  }
  note(message: string, path?: FieldPath): void {
    this.add('NOTE', message, path);
  }
  /** Cannot be decided from the documents at hand (an unresolvable reference, a registry crate). */
  indeterminate(message: string, path?: FieldPath): void {
    this.indeterminateReasons.push(message);
    this.add('WARN', `INDETERMINATE: ${message}`, path);
  }
  get errors(): number {
    return this.count('ERROR');
  }
  get warnings(): number {
    return this.count('WARN');
  }
  private count(level: Level): number {
    for (; this.tallied < this.list.length; this.tallied++) this.tally[this.list[this.tallied]!.level]++;
    return this.tally[level];
  }
  /** One push per entry: spreading a list of some 100,000 findings as arguments overflows the stack. */
  merge(other: Findings): void {
    for (const finding of other.list) this.list.push(finding);
    for (const reason of other.indeterminateReasons) this.indeterminateReasons.push(reason);
  }
}

/** The most characters of one unbroken run (a value, an id, a key) a message or a view shows. */
const RUN_LIMIT = 200;
const LONG_RUN = new RegExp(`\\S{${RUN_LIMIT + 1},}`, 'g');
/** The most characters of a whole message (a huge value may have blanks in it). */
const MESSAGE_LIMIT = 2_000;

/**
 * A value echoed from a document can be any size; what vkit prints about it cannot: every run of
 * more than 200 characters without white space is cut to 200 with its length said
 * (`aaaa… (5242880 characters)`), so a 5 MB id echoed in seven messages is not 35 MB of output.
 */
export function clipRuns(text: string): string {
  return text.length <= RUN_LIMIT ? text : text.replace(LONG_RUN, clipRun);
}

/** Quotes and brackets around a value stay outside the cut, so the length said is the value's own. */
function clipRun(run: string): string {
  const [, lead, value, trail] = /^([`'"([{<]*)([\s\S]*?)([`'")\]}>.,:;?!]*)$/.exec(run)!;
  return `${lead}${cutTo(value!, RUN_LIMIT)}${trail}`;
}

/** `clipRuns`, then the whole message cut at 2,000 characters the same way. */
export function clip(text: string): string {
  return cutTo(clipRuns(text), MESSAGE_LIMIT);
}

/** The cut text fits `limit` with its tail, so cutting it again changes nothing. */
function cutTo(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const tail = `… (${text.length} characters)`;
  let end = limit - tail.length;
  // Never split a surrogate pair: half a character is not a character.
  if (/[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
  return `${text.slice(0, end)}${tail}`;
}

/** `ERROR acceptance.toml: claim 'WT-1': ... (line 12)`. */
export function findingLine(f: Finding): string {
  return `${f.level} ${f.file}: ${f.message}${f.line ? ` (line ${f.line})` : ''}`;
}

const RANK: Record<Verdict, number> = { PASS: 0, 'PASS-PROSPECTIVE': 1, INDETERMINATE: 2, FAIL: 3 };

/** Several files: FAIL beats INDETERMINATE beats PASS(-PROSPECTIVE). */
export function worstVerdict(verdicts: Verdict[]): Verdict {
  return verdicts.reduce<Verdict>((a, b) => (RANK[b] > RANK[a] ? b : a), 'PASS');
}

export function verdictExit(v: Verdict): 0 | 1 | 3 {
  return v === 'FAIL' ? 1 : v === 'INDETERMINATE' ? 3 : 0;
}

/** What a verb hands its face: printable lines, a JSON value, and the exit code. */
export interface Outcome<J = unknown> {
  exitCode: number;
  lines: string[];
  /** Lines for stderr beside the answer (a verdict a reader redirecting stdout must still see). */
  stderr?: string[];
  json: J;
}
