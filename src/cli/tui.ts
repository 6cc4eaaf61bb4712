/**
 * `vkit tui`'s handler (declared in `verbs/build.ts`, bound in `table.ts`): the gate overview once,
 * from retained evidence (runs nothing). Ink and React are imported only here, lazily, so
 * `vkit --version` and the other verbs never load them; where they are not installed, plain lines.
 */
import { resolve } from 'node:path';
import { gateExitCode } from '../gate/evaluate.js';
import * as service from '../service/index.js';
import { defaultStoreDir } from '../service/workspace.js';
import type { Handler } from '../kit/verb.js';
import type * as verbs from './verbs/faces.js';
import { defaultRoot } from '../service/root.js';
import { terminalUiInstalled } from './terminal-ui.js';

export const tui: Handler<typeof verbs.tui> = async ({ values: v }) => {
  const root = v.root ? resolve(v.root) : defaultRoot();
  const report = await service.gate({ root, store: v.store }, { deep: v.deep });
  if (v.json) {
    process.stdout.write(`${JSON.stringify(report.gate, null, 2)}\n`);
    return gateExitCode(report.gate.status);
  }
  const store = v.store ? resolve(v.store) : await defaultStoreDir(root);
  if (process.stdout.isTTY && (await terminalUiInstalled())) {
    const { renderOverviewOnce } = await import('../tui/overview.js');
    renderOverviewOnce(report.gate, { root, store });
  } else {
    const [{ overviewLines }, { stateFromGate }] = await Promise.all([
      import('../tui/lines.js'),
      import('../tui/state.js'),
    ]);
    process.stdout.write(`${overviewLines(stateFromGate(report.gate, root, store)).join('\n')}\n`);
  }
  return gateExitCode(report.gate.status);
};
