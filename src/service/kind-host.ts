/**
 * The operations the core lends a kind (`KindHost`, `src/kit/host.ts`): the faces hand this object
 * to a kind's verbs and tools, which may not import the service or the engine themselves.
 */
import { runEngine } from '../engine/build.js';
import type { BuiltAction, KindHost, ProjectPlace } from '../kit/host.js';
import { policyAccept } from './formal.js';
import { defaultRoot } from './root.js';
import { defaultStoreDir, openWorkspace } from './workspace.js';

async function accept(project: ProjectPlace, at: Date): Promise<Array<{ key: string; reasons: string[] }>> {
  const env = project.env ?? process.env;
  const result = await policyAccept({ root: project.root, store: project.store, env }, { env, now: () => at });
  return result.refused.map((r) => ({ key: r.component, reasons: r.reasons }));
}

async function build(project: ProjectPlace, opts: { signal?: AbortSignal }): Promise<BuiltAction[]> {
  const ws = await openWorkspace({ root: project.root, store: project.store, env: project.env });
  try {
    const { actions } = await runEngine(ws, { mode: 'build', signal: opts.signal });
    return actions.map((a) => {
      const read = a.receipt ? ws.store.actions.readReceipt(a.receipt) : null;
      return {
        label: a.label,
        outcome: a.outcome,
        reason: a.reason,
        run: a.run,
        receipt: a.receipt,
        read: read?.state === 'intact' ? { state: 'intact', subject: read.receipt.subject } : read,
      };
    });
  } finally {
    ws.close();
  }
}

export const kindHost: KindHost = { defaultRoot: () => defaultRoot(), defaultStoreDir, accept, build };
