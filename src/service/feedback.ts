/**
 * Feedback: a user or agent records a task, the capability vkit lacked for it and the verification
 * benefit that capability would bring. Each request is one Markdown file under
 * `<git common dir>/vkit/feedback/` (shared by every worktree), or `<root>/.vkit/feedback/` without
 * git, whatever `--store` says. Feedback never opens the store and never reaches results or gates.
 *
 * Pure core (validation, rendering, parsing, ordering) first; the thin I/O at the end.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { gitInfo } from '../capture/git.js';
import { InvalidInputError, invalid, type Issue } from '../errors.js';
import { realRoot } from './root.js';
import { hexOf, jsonId, type Sha256Id } from '../hash/index.js';

export const FEEDBACK_KINDS = ['formal', 'reliable'] as const;
type FeedbackKind = (typeof FEEDBACK_KINDS)[number];

/** Longest accepted text field, in characters (Unicode code points) after whitespace normalisation. */
const FEEDBACK_MAX_CHARS = 4000;
/** Preview length of `task` and `missing` in `listFeedback`, in characters. */
const FEEDBACK_PREVIEW_CHARS = 120;
/** Largest `limit` `listFeedback` accepts. */
export const FEEDBACK_MAX_LIMIT = 200;

const RUN_ID = /^run_[0-9a-z]{1,64}$/;
const FILE_NAME = /^(formal|reliable)-[0-9a-f]{16}\.md$/;
// Control characters other than tab, line feed and carriage return (which are whitespace here).
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What a face submits (CLI flags, MCP arguments). */
export interface FeedbackInput {
  /** What the user or agent was trying to do. */
  task: string;
  /** The capability vkit lacked for it. */
  missing: string;
  /** What verifying with that capability would establish or catch. */
  benefit: string;
  /** `formal` for formal verification, `reliable` for other rigorous checks. @default 'formal' */
  kind?: FeedbackKind;
  /** A run whose retained evidence the request refers to (`run_...`). Not looked up: feedback never opens the store. */
  run?: string;
}

/** A validated request: text fields normalised, defaults applied. Its canonical JSON is its identity. */
export interface FeedbackRequest {
  kind: FeedbackKind;
  task: string;
  missing: string;
  benefit: string;
  run: string | null;
}

export interface FeedbackAddResult {
  schema: 'vkit.feedback-add/1';
  /** Absolute path of the request's file. */
  file: string;
  /** False when an identical request was already recorded; that file is left untouched. */
  created: boolean;
  kind: FeedbackKind;
  /** sha256 over the canonical request; the file name carries its first 16 hex digits. */
  id: Sha256Id;
}

interface FeedbackPreview {
  file: string;
  kind: FeedbackKind;
  /** The task, cut to 120 characters (ending in `…` when cut); null when the file is not in vkit's format. */
  task: string | null;
  missing: string | null;
  run: string | null;
}

export interface FeedbackList {
  schema: 'vkit.feedback-list/1';
  dir: string;
  /** Feedback files found. */
  total: number;
  /** Previews returned (at most `limit`). */
  shown: number;
  /** Formal requests first, then reliable; each group newest first, ties by file name. */
  items: FeedbackPreview[];
}

const TEXT_FIELDS = ['task', 'missing', 'benefit'] as const;
const KNOWN_FIELDS = new Set<string>([...TEXT_FIELDS, 'kind', 'run']);

/**
 * Checks a submission and returns its canonical form. Text fields are NFC-normalised, trimmed, and
 * every run of whitespace (a soft line break included) becomes one space: Markdown renders them alike,
 * so requests that differ only in wrapping are duplicates. A blank line (a second paragraph) is refused.
 */
export function validateFeedback(data: unknown): { value?: FeedbackRequest; issues: Issue[] } {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { issues: [{ path: '', message: `Expected a feedback request object, got ${describe(data)}` }] };
  }
  const input = data as Record<string, unknown>;
  const issues: Issue[] = [];
  for (const key of Object.keys(input)) {
    if (!KNOWN_FIELDS.has(key) && input[key] !== undefined)
      issues.push({ path: key, message: `Unknown field \`${key}\`: expected task, missing, benefit, kind or run` });
  }
  const text: Partial<Record<(typeof TEXT_FIELDS)[number], string>> = {};
  for (const field of TEXT_FIELDS) {
    const value = input[field];
    const problem = paragraphProblem(value);
    if (problem) issues.push({ path: field, message: `Expected \`${field}\` to be ${problem}` });
    else text[field] = normalise(value as string);
  }
  const kind = input.kind === undefined ? 'formal' : input.kind;
  if (!(FEEDBACK_KINDS as readonly unknown[]).includes(kind))
    issues.push({ path: 'kind', message: `Expected \`kind\` to be formal or reliable, got ${describe(kind)}` });
  const run = input.run === undefined || input.run === null ? null : input.run;
  if (run !== null && (typeof run !== 'string' || !RUN_ID.test(run)))
    issues.push({
      path: 'run',
      message: `Expected \`run\` to be a run id like run_0abc123 (run_ then 1 to 64 of 0-9 a-z), got ${describe(run)}`,
    });
  if (issues.length) return { issues };
  return {
    value: {
      kind: kind as FeedbackKind,
      task: text.task!,
      missing: text.missing!,
      benefit: text.benefit!,
      run: run as string | null,
    },
    issues,
  };
}

function paragraphProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `a non-empty single paragraph, got ${describe(value)}`;
  if (value.trim() === '') return 'a non-empty single paragraph, got an empty string';
  if (LONE_SURROGATE.test(value)) return 'valid Unicode text, got a lone surrogate';
  if (CONTROL.test(value))
    return `text without control characters, got U+${value.match(CONTROL)![0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  if (severalParagraphs(value)) return 'a single paragraph, got a blank line (several paragraphs)';
  const length = [...normalise(value)].length;
  if (length > FEEDBACK_MAX_CHARS)
    return `at most ${FEEDBACK_MAX_CHARS.toLocaleString('en-US')} characters, got ${length.toLocaleString('en-US')}`;
  return undefined;
}

/** A blank (whitespace-only) line between two lines, or U+2029 PARAGRAPH SEPARATOR, starts a second paragraph. */
function severalParagraphs(value: string): boolean {
  const text = value.trim();
  return text.includes('\u2029') || text.split(/\r\n|[\r\n\u2028]/).some((line) => line.trim() === '');
}

function normalise(value: string): string {
  return value.normalize('NFC').trim().replace(/\s+/g, ' ');
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return `\`${value.length > 40 ? `${value.slice(0, 40)}…` : value}\``;
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} \`${String(value)}\``;
}

/** Identity of a request: sha256 over its canonical JSON. No time, host or path enters it. */
function feedbackId(req: FeedbackRequest): Sha256Id {
  return jsonId({
    schema: 'vkit.feedback/1',
    kind: req.kind,
    task: req.task,
    missing: req.missing,
    benefit: req.benefit,
    run: req.run,
  });
}

/** `<kind>-<first 16 hex of the identity>.md` */
function feedbackFileName(req: FeedbackRequest): string {
  return `${req.kind}-${hexOf(feedbackId(req)).slice(0, 16)}.md`;
}

const TITLES: Record<FeedbackKind, string> = {
  formal: 'formal verification request',
  reliable: 'reliable check request',
};

/**
 * The file's bytes: a fixed line layout (every field is one line after normalisation), so
 * `parseFeedback` reads fields by position and a field's text can never be mistaken for a heading.
 */
export function renderFeedback(req: FeedbackRequest): string {
  return [
    `# vkit feedback: ${TITLES[req.kind]}`,
    '',
    `- Kind: ${req.kind}`,
    `- Linked run: ${req.run ?? 'none'}`,
    `- Identity: ${feedbackId(req)}`,
    '',
    '## Task',
    '',
    req.task,
    '',
    '## Missing capability',
    '',
    req.missing,
    '',
    '## Expected verification benefit',
    '',
    req.benefit,
    '',
  ].join('\n');
}

/** Reads back a file `renderFeedback` wrote; undefined for anything else (a hand edit that broke the layout). */
export function parseFeedback(text: string): FeedbackRequest | undefined {
  const lines = text.split('\n');
  const kind = lines[2]?.match(/^- Kind: (formal|reliable)$/)?.[1] as FeedbackKind | undefined;
  const run = lines[3]?.match(/^- Linked run: (run_[0-9a-z]+|none)$/)?.[1];
  if (!kind || !run || !lines[0]?.startsWith('# vkit feedback: ')) return undefined;
  if (
    lines[6] !== '## Task' ||
    lines[10] !== '## Missing capability' ||
    lines[14] !== '## Expected verification benefit'
  )
    return undefined;
  const [task, missing, benefit] = [lines[8], lines[12], lines[16]];
  if (!task || !missing || !benefit) return undefined;
  return { kind, task, missing, benefit, run: run === 'none' ? null : run };
}

/** Cuts `text` to `max` characters (code points), marking a cut with `…`. */
function truncate(text: string, max = FEEDBACK_PREVIEW_CHARS): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

interface FeedbackEntry {
  name: string;
  kind: FeedbackKind;
  mtimeNs: bigint;
}

/** Formal requests first, then reliable; newest first within each; ties by name, so the order is total. */
function orderFeedback<E extends FeedbackEntry>(entries: readonly E[]): E[] {
  const rank = (k: FeedbackKind) => FEEDBACK_KINDS.indexOf(k);
  return [...entries].sort(
    (a, b) =>
      rank(a.kind) - rank(b.kind) ||
      (a.mtimeNs > b.mtimeNs ? -1 : a.mtimeNs < b.mtimeNs ? 1 : 0) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

// ---- I/O ----

function checkRoot(root: string): string {
  return realRoot(root, { path: 'root' });
}

/** `<git common dir>/vkit/feedback/` inside a git work tree, else `<root>/.vkit/feedback/`. Never the `--store` directory. */
export async function feedbackDir(root: string): Promise<string> {
  const dir = checkRoot(root);
  const info = await gitInfo(dir);
  return info ? join(info.commonDir, 'vkit', 'feedback') : join(dir, '.vkit', 'feedback');
}

/**
 * Records one request. The file appears whole or not at all: it is written to a temp file, fsynced,
 * then hard-linked to its final name, which fails if that name exists (`wx` semantics without a
 * window where a reader sees a partial file). So concurrent identical submissions leave one file, and
 * a duplicate never rewrites, re-times or re-reads the existing one.
 */
export async function addFeedback(root: string, input: FeedbackInput): Promise<FeedbackAddResult> {
  const { value, issues } = validateFeedback(input);
  if (!value)
    throw new InvalidInputError(
      'ERR_FEEDBACK_INVALID',
      issues,
      'Give task, missing and benefit as non-empty single paragraphs of at most 4,000 characters; kind is formal or reliable; run is a run id such as run_0abc123.',
    );
  const dir = await feedbackDir(root);
  const file = join(dir, feedbackFileName(value));
  const result = (created: boolean): FeedbackAddResult => ({
    schema: 'vkit.feedback-add/1',
    file,
    created,
    kind: value.kind,
    id: feedbackId(value),
  });
  if (await exists(file)) return result(false);
  await mkdir(dir, { recursive: true });
  return result(await publish(dir, file, renderFeedback(value)));
}

async function publish(dir: string, file: string, text: string): Promise<boolean> {
  const temp = join(dir, `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  const handle = await open(temp, 'wx', 0o644);
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temp, file);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      // Filesystems without hard links: exclusive create of the final name keeps one file per request.
      if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS')
        return writeExclusive(file, text);
      throw error;
    }
  } finally {
    await unlink(temp).catch(() => {});
  }
}

async function writeExclusive(file: string, text: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Checks a `limit`: an integer from 1 to 200. */
function validateLimit(limit: unknown): number {
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > FEEDBACK_MAX_LIMIT) {
    throw invalid(
      'ERR_FEEDBACK_INVALID',
      `Expected \`limit\` to be an integer from 1 to ${FEEDBACK_MAX_LIMIT}, got ${describe(limit)}`,
      { path: 'limit' },
    );
  }
  return limit;
}

/**
 * Bounded previews: every file is stat'ed for the order, but only the `limit` shown are read, and
 * each only up to 64 KiB. Read-only: a missing directory is an empty list, never created.
 */
export async function listFeedback(root: string, opts: { limit?: number } = {}): Promise<FeedbackList> {
  const limit = validateLimit(opts.limit ?? 20);
  const dir = await feedbackDir(root);
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => FILE_NAME.test(n));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    names = [];
  }
  const entries: FeedbackEntry[] = [];
  for (const name of names) {
    try {
      const s = await stat(join(dir, name), { bigint: true });
      if (s.isFile())
        entries.push({ name, kind: name.slice(0, name.indexOf('-')) as FeedbackKind, mtimeNs: s.mtimeNs });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // removed while listing
    }
  }
  const ordered = orderFeedback(entries).slice(0, limit);
  const items: FeedbackPreview[] = [];
  for (const e of ordered) {
    const file = join(dir, e.name);
    const req = parseFeedback(await readHead(file, 64 * 1024));
    items.push({
      file,
      kind: e.kind,
      task: req ? truncate(req.task) : null,
      missing: req ? truncate(req.missing) : null,
      run: req?.run ?? null,
    });
  }
  return { schema: 'vkit.feedback-list/1', dir, total: entries.length, shown: items.length, items };
}

async function readHead(file: string, max: number): Promise<string> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
  try {
    const buffer = Buffer.alloc(max);
    const { bytesRead } = await handle.read(buffer, 0, max, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
