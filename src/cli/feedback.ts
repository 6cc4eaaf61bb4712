/**
 * `vkit feedback add` and `vkit feedback list`'s handlers (declared in `verbs/feedback.ts`, bound in
 * `table.ts`): call the feedback service, render.
 */
import { basename, resolve } from 'node:path';
import { EXIT, invalid } from '../errors.js';
import { addFeedback, type FeedbackInput, listFeedback } from '../service/feedback.js';
import { type Handler, printJson } from '../kit/verb.js';
import type * as verbs from './verbs/feedback.js';
import { defaultRoot } from '../service/root.js';

const json = printJson;

export const add: Handler<typeof verbs.add> = async ({ values: v }) => {
  // A missing flag reaches the service as undefined, which it reports with the field's path.
  const request = { task: v.task, missing: v.missing, benefit: v.benefit, kind: v.kind, run: v.run } as FeedbackInput;
  const result = await addFeedback(resolve(v.root ?? defaultRoot()), request);
  if (v.json) json(result);
  else
    process.stdout.write(
      result.created
        ? `recorded ${result.kind} feedback: ${result.file}\n`
        : `already recorded, existing file kept: ${result.file}\n`,
    );
  return EXIT.ok;
};

export const list: Handler<typeof verbs.list> = async ({ values: v }) => {
  if (v.limit !== undefined && !/^[0-9]+$/.test(v.limit))
    throw invalid('ERR_USAGE', `Expected --limit to be a positive integer, got \`${v.limit}\``, { path: '--limit' });
  const list = await listFeedback(resolve(v.root ?? defaultRoot()), {
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
