/** `vkit change certify`'s handler: reads the request file, certifies it against the host's target, prints the report. */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { invalid } from '../../src/errors.js';
import { type Handler, printJson } from '../../src/kit/verb.js';
import { jsonOf } from './lib/records.js';
import { renderReport } from './lib/report.js';
import { certify } from './service/certify.js';
import type { changeCertify as verb } from './verbs.js';

export const changeCertify: Handler<typeof verb> = async ({ values: v }) => {
  if (!v.request)
    throw invalid('ERR_USAGE', 'Expected --request FILE', { path: '--request' }, 'See `vkit change certify --help`.');
  const timeout = v['solver-timeout'];
  if (timeout !== undefined && !/^[1-9][0-9]{0,6}$/.test(timeout))
    throw invalid('ERR_USAGE', `Expected --solver-timeout to be milliseconds from 1 to 9999999, got \`${timeout}\``, {
      path: '--solver-timeout',
    });
  let text: string;
  try {
    text = await readFile(resolve(v.request), 'utf8');
  } catch (error) {
    throw invalid(
      'ERR_REQUEST_READ',
      `Cannot read the request: ${(error as Error).message}`,
      { file: v.request },
      'Pass --request with the path of a JSON request file.',
    );
  }
  const parsed = jsonOf(text, v.request);
  if (parsed.issues.length) throw invalid('ERR_CHANGE_REQUEST', parsed.issues[0]!.message, parsed.issues[0]!);
  const { report, exitCode } = await certify(parsed.value, {
    root: resolve(v.root ?? '.'),
    target: v.target ?? 'HEAD',
    shown: v.request,
    ...(timeout ? { timeoutMs: Number(timeout) } : {}),
  });
  if (v.json) printJson(report);
  else process.stdout.write(renderReport(report));
  return exitCode;
};
