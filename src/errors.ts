/**
 * The few error classes vkit throws on purpose. Each carries a stable `code` that tests assert on
 * and the process exit code from the one table in ARCHITECTURE.md. Anything else that escapes is
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
  constructor(code: string, exitCode: ExitCode, message: string, opts: { where?: string; hint?: string; cause?: unknown } = {}) {
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

/** Bad user input: config, flags, documents. Exit 2. */
export class InvalidInputError extends VkitError {
  readonly issues: Issue[];
  constructor(code: string, issues: Issue[], hint?: string) {
    super(code, EXIT.invalid, issues.map(formatIssue).join('\n'), { hint, where: issues[0] ? issueWhere(issues[0]) : undefined });
    this.issues = issues;
  }
}

export function invalid(code: string, message: string, where: { file?: string; path?: string; line?: number } = {}, hint?: string): InvalidInputError {
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
