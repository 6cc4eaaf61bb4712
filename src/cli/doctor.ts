/**
 * `vkit doctor`'s handler (declared in `verbs/doctor.ts`): prints the machine report of
 * `service/doctor.ts`, plus whether a resident build process serves this directory (a face's
 * business: the service does not know the daemon).
 */
import { resolve } from 'node:path';
import { control } from '../daemon/client.js';
import { FRAME } from '../daemon/frames.js';
import { daemonPaths } from '../daemon/paths.js';
import { EXIT } from '../errors.js';
import { type Handler, printJson } from '../kit/verb.js';
import type { doctor as doctorVerb } from './verbs/doctor.js';

export const doctor: Handler<typeof doctorVerb> = async ({ values: v }) => {
  const { doctor: examine } = await import('../service/doctor.js');
  const report = await examine(process.env);
  report.parts.push(await daemonPart());
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

/** Whether a resident build process serves the current directory (optional: answers are the same without). */
async function daemonPart() {
  const root = resolve('.');
  try {
    const status = (await control(daemonPaths(root).socket, FRAME.ping)) as { pid?: number } | undefined;
    return {
      part: 'resident daemon',
      status: 'info' as const,
      detail: status
        ? `running for ${root} (pid ${status.pid})`
        : `none for ${root} (optional: \`vkit daemon start\` serves build and gate faster)`,
    };
  } catch (error) {
    return { part: 'resident daemon', status: 'info' as const, detail: `not asked: ${(error as Error).message}` };
  }
}
