/** `vkit model compare`'s handler: reads the request file, compares, prints the report; the exit code is the comparison's. */
import { resolve } from 'node:path';
import { invalid } from '../../src/errors.js';
import { type Handler, printJson } from '../../src/kit/verb.js';
import { renderCompareReport } from './lib/index.js';
import { compareRequestFile } from './service.js';
import type { modelCompare as verb } from './verbs.js';

export const modelCompare: Handler<typeof verb> = async ({ values: v }) => {
  if (!v.request) throw invalid('ERR_USAGE', 'Expected --request FILE', { path: '--request' });
  const { report, exitCode } = await compareRequestFile(resolve(v.request), v.request);
  if (v.json) printJson(report);
  else process.stdout.write(renderCompareReport(report));
  return exitCode;
};
