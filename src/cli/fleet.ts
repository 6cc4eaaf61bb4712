/** `vkit worker` (declared in `verbs/fleet.ts`, bound in `table.ts`). */
import { EXIT } from '../errors.js';
import type { Handler } from '../kit/verb.js';
import type * as verbs from './verbs/fleet.js';

export const worker: Handler<typeof verbs.worker> = async ({ values: v }) => {
  const { runWorker } = await import('../service/fleet.js');
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  await runWorker({ ...v, env: process.env, signal: stop.signal, log: (line) => process.stderr.write(`${line}\n`) });
  return EXIT.ok;
};
