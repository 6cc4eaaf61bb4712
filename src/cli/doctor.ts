/** `vkit doctor`'s handler (declared in `verbs/doctor.ts`): prints the machine report of `service/doctor.ts`. */
import { EXIT } from '../errors.js';
import { type Handler, printJson } from './verb.js';
import type { doctor as doctorVerb } from './verbs/doctor.js';

export const doctor: Handler<typeof doctorVerb> = async ({ values: v }) => {
  const { doctor: examine } = await import('../service/doctor.js');
  const report = await examine(process.env);
  if (v.json) printJson(report);
  else {
    const lines = [`sandbox for checks: ${report.sandbox ?? 'NONE: sandboxed checks are BLOCKED here'}`, ''];
    for (const p of report.parts) {
      lines.push(`${p.status.padEnd(7)} ${p.part}: ${p.detail}`);
      if (p.fix) lines.push(`        to add it: ${p.fix}`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return report.sandbox ? EXIT.ok : EXIT.blocked;
};
