/** `vkit report --out DIR`: checks DIR, reads the report's data from the service, writes the page. */
import { relative, resolve } from 'node:path';
import { gateExitCode } from '../../gate/evaluate.js';
import { type Handler, printJson } from '../../kit/verb.js';
import * as service from '../../service/index.js';
import { defaultRoot } from '../../service/root.js';
import type * as verbs from '../verbs/report.js';
import { renderReport, renderUnfinished } from './html.js';
import { checkOutDir, writePage } from './out-dir.js';

export const report: Handler<typeof verbs.report> = async ({ values: v, version }) => {
  const open = { root: v.root ? resolve(v.root) : defaultRoot(), store: v.store };
  // Checked before the gate's walk, so a bad --out costs nothing; the page is written only after.
  const dir = checkOutDir(v.out, await service.reportStoreDir(open));
  const ctx = { generatedAt: new Date().toISOString(), version: version(), root: open.root };
  // An earlier report's verdict must not outlive this run: until the new page is written, DIR says none.
  writePage(dir, renderUnfinished(ctx));
  const data = await service.reportData(open, { deep: v.deep });
  const page = writePage(dir, renderReport(data, ctx));
  if (v.json) printJson({ schema: 'vkit.report/1', page, gate: data.gate.status });
  else process.stdout.write(`vkit report: gate ${data.gate.status}: wrote ${relative(process.cwd(), page) || page}\n`);
  return gateExitCode(data.gate.status);
};
