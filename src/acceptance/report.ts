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

/** Collects the findings about one document; `indeterminate` marks an unresolvable reference. */
export class Findings {
  readonly list: Finding[] = [];
  indeterminateReasons: string[] = [];
  constructor(
    readonly file: string,
    private readonly doc?: Doc,
  ) {}
  private add(level: Level, message: string, path?: FieldPath): void {
    this.list.push({ level, file: this.file, message, ...(path ? { path: pathText(path), line: this.doc?.line(path) } : {}) });
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
    return this.list.filter((f) => f.level === 'ERROR').length;
  }
  get warnings(): number {
    return this.list.filter((f) => f.level === 'WARN').length;
  }
  merge(other: Findings): void {
    this.list.push(...other.list);
    this.indeterminateReasons.push(...other.indeterminateReasons);
  }
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
  json: J;
}
