/**
 * The few error classes vkit throws on purpose. Each carries a stable `code` that tests assert on
 * and the process exit code from the one table (docs/cli.md, "Exit codes"). Anything else that escapes is
 * an internal error (exit 4).
 */
export const EXIT = {
  ok: 0,
  fail: 1,
  invalid: 2,
  blocked: 3,
  internal: 4,
  unavailable: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class VkitError extends Error {
  readonly code: string;
  readonly exitCode: ExitCode;
  /** Where the problem is: a file, a field path, a line. */
  readonly where?: string;
  /** What the user can do next. */
  readonly hint?: string;
  constructor(
    code: string,
    exitCode: ExitCode,
    message: string,
    opts: { where?: string; hint?: string; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = exitCode;
    this.where = opts.where;
    this.hint = opts.hint;
  }
}

/** One problem found while validating user input (config, request, flag). */
export interface Issue {
  /** File the problem is in, when there is one. */
  file?: string;
  /** Field path such as `checks[2].inputs`. */
  path: string;
  message: string;
  line?: number;
}

/** Bad user input: config, flags, documents. Exit 2. Its issues are shown cut (`cutLongText`). */
export class InvalidInputError extends VkitError {
  readonly issues: Issue[];
  constructor(code: string, issues: Issue[], hint?: string) {
    const shown = issues.map((i) => ({ ...i, path: cutLongText(i.path), message: cutLongText(i.message) }));
    super(code, EXIT.invalid, shown.map(formatIssue).join('\n'), {
      hint,
      where: shown[0] ? issueWhere(shown[0]) : undefined,
    });
    this.issues = shown;
  }
}

/** Most characters shown of one unbroken run (a value, a key) in an issue. */
const RUN_LIMIT = 200;
const LONG_RUN = new RegExp(`\\S{${RUN_LIMIT + 1},}`, 'g');
/** Most characters shown of a whole message (a huge value may have spaces in it). */
const TEXT_LIMIT = 1_000;

/**
 * User input can be any size; an error message about it must not be. Every issue, so every config
 * error, passes through here: a run of more than 200 characters without white space keeps its first
 * 200, then a text of more than 1,000 characters its first 1,000, each followed by how many were
 * left out. Runs rather than whole messages are cut at 200 so that messages which are long for a
 * reason (a list of ids, a parse error's excerpt) stay whole.
 */
function cutLongText(text: string): string {
  return cutAt(
    text.replace(LONG_RUN, (run) => cutAt(run, RUN_LIMIT)),
    TEXT_LIMIT,
  );
}

function cutAt(text: string, limit: number): string {
  if (text.length <= limit) return text;
  // Never split a surrogate pair: half a character is not a character.
  const end = /[\uD800-\uDBFF]/.test(text[limit - 1]!) ? limit - 1 : limit;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}

export function invalid(
  code: string,
  message: string,
  where: { file?: string; path?: string; line?: number } = {},
  hint?: string,
): InvalidInputError {
  return new InvalidInputError(code, [{ file: where.file, path: where.path ?? '', line: where.line, message }], hint);
}

/** The verb or method is not built into this vkit. Exit 5. */
export class UnavailableError extends VkitError {
  constructor(what: string) {
    super('ERR_UNAVAILABLE', EXIT.unavailable, `${what} is not available in this vkit`);
  }
}

function issueWhere(issue: Issue): string {
  const file = issue.file ? `${issue.file}${issue.line ? `:${issue.line}` : ''}` : '';
  return [file, issue.path].filter(Boolean).join(' ');
}

export function formatIssue(issue: Issue): string {
  const where = issueWhere(issue);
  return where ? `${where}: ${issue.message}` : issue.message;
}
