/** `vkit feedback add` and `vkit feedback list`: parse flags, call the feedback service, render. */
import { basename, resolve } from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { EXIT, invalid } from '../errors.js';
import { BASE_FLAGS, parseFlags, printJson, type Command } from './args.js';
import { addFeedback, listFeedback, type FeedbackInput } from '../service/feedback.js';

// `--store` is accepted so scripts that pass it everywhere keep working, and ignored: feedback
// lives beside the repository's git directory whatever the store is.
function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  return parseFlags(args, { ...BASE_FLAGS, ...options });
}

const json = printJson;

export const feedbackAdd: Command = async (args) => {
  const v = parse(args, {
    task: { type: 'string' },
    missing: { type: 'string' },
    benefit: { type: 'string' },
    kind: { type: 'string' },
    run: { type: 'string' },
  });
  // A missing flag reaches the service as undefined, which it reports with the field's path.
  const request = { task: v.task, missing: v.missing, benefit: v.benefit, kind: v.kind, run: v.run } as FeedbackInput;
  const result = await addFeedback(resolve(v.root ?? process.cwd()), request);
  if (v.json) json(result);
  else
    process.stdout.write(
      result.created
        ? `recorded ${result.kind} feedback: ${result.file}\n`
        : `already recorded, existing file kept: ${result.file}\n`,
    );
  return EXIT.ok;
};

export const feedbackList: Command = async (args) => {
  const v = parse(args, { limit: { type: 'string' } });
  if (v.limit !== undefined && !/^[0-9]+$/.test(v.limit))
    throw invalid('ERR_USAGE', `Expected --limit to be a positive integer, got \`${v.limit}\``, { path: '--limit' });
  const list = await listFeedback(resolve(v.root ?? process.cwd()), {
    limit: v.limit === undefined ? undefined : Number(v.limit),
  });
  if (v.json) {
    json(list);
    return EXIT.ok;
  }
  if (list.total === 0) {
    process.stdout.write(`no feedback in ${list.dir}\n`);
    return EXIT.ok;
  }
  for (const item of list.items) {
    const text = item.task === null ? '(not in vkit feedback format)' : `${item.task}  missing: ${item.missing}`;
    process.stdout.write(`${item.kind.padEnd(8)} ${basename(item.file)}  ${item.run ?? '-'}  ${text}\n`);
  }
  process.stdout.write(
    `${list.shown} of ${list.total} shown from ${list.dir}${list.shown < list.total ? '; --limit N for more' : ''}\n`,
  );
  return EXIT.ok;
};

export const FEEDBACK_COMMANDS: Record<string, Command> = {
  'feedback add': feedbackAdd,
  'feedback list': feedbackList,
};

const FLAGS = `  --root DIR     project root (default: cwd); feedback goes to <git common dir>/vkit/feedback/,
                 or <root>/.vkit/feedback/ without git. --store is accepted and ignored.
  --json         machine-readable output
`;

export const FEEDBACK_HELP: Record<string, string> = {
  'feedback add': `Usage: vkit feedback add --task TEXT --missing TEXT --benefit TEXT [--kind formal|reliable] [--run ID] [--root DIR] [--json]

Records a request for a verification capability vkit lacks, as one Markdown file named by a digest of
its content. Submitting the same request again keeps the existing file and says so. Feedback never
affects results or gates.

  --task TEXT     what you were trying to do
  --missing TEXT  the capability that was missing
  --benefit TEXT  what verifying with it would establish or catch
  --kind K        formal (formal verification, the default) or reliable (other rigorous checks)
  --run ID        a run whose retained evidence the request refers to (run_...)

Each text is one paragraph of at most 4,000 characters; whitespace runs count as one space.

${FLAGS}
Exit codes: 0 recorded or already recorded, 2 invalid request, 4 internal error.
`,
  'feedback list': `Usage: vkit feedback list [--limit N] [--root DIR] [--json]

Previews recorded feedback: formal requests first, then reliable, each newest first. Task and missing
capability are cut to 120 characters; open the file for the rest.

  --limit N      show at most N requests, 1 to 200 (default 20)

${FLAGS}
Exit codes: 0 listed, 2 invalid request, 4 internal error.
`,
};
