/**
 * The engine's one loop: walk the action graph in dependency order, capture each node's inputs,
 * plan it through its rule, compute its key, reuse intact evidence or submit a job, and fold every
 * requirement into the gate. `vkit gate` is the same walk with nothing allowed to run.
 *
 * The steps: open the walk, capturing every node's inputs (walk-state.ts); evaluate each node
 * (evaluate-node.ts); then check again the outputs another job may have written over, and gate.
 */
import { evaluateGate } from '../gate/evaluate.js';
import type { ItemStatus } from '../gate/schema.js';
import type { ActionGraph } from '../graph/compile.js';
import type { BuildOptions, EngineContext } from './context.js';
import { nodeResult } from './evaluate-node.js';
import { makeEvent } from './events.js';
import type { NodeResult } from './node-result.js';
import { rewrittenOutputs } from './outputs.js';
import type { BuildReport } from './schema.js';
import { openWalk, type WalkState } from './walk-state.js';

export type { BuildOptions, RelianceListener, EngineContext, ToolCall } from './context.js';

export async function runEngine(ctx: EngineContext, opts: BuildOptions): Promise<BuildReport> {
  const t0 = performance.now();
  const walk = openWalk(ctx, opts);
  // Nodes with a file hashed afresh are evaluated first: a job an edit needs is queued before the
  // hundreds of unchanged nodes' evidence is checked, which then goes on beside it. Only the order
  // of evaluation moves: each node still waits for its dependencies, and the report keeps graph order.
  for (const label of walk.edited) void nodeResult(walk, label);
  const settled = await Promise.all(ctx.graph.order.map((label) => nodeResult(walk, label)));
  return finishWalk(walk, settled, t0);
}

/** The walk's report: results whose outputs were written over unvouched, uploads awaited, the gate evaluated. */
async function finishWalk(walk: WalkState, settled: NodeResult[], t0: number): Promise<BuildReport> {
  const { ctx, opts, counter, fileStates } = walk;
  // A job may have written over outputs another result vouches for (one check writing a file
  // another declares): such a result no longer stands, and the build says so rather than end READY.
  const rewritten = rewrittenOutputs(
    ctx.root,
    { cache: fileStates, now: ctx.store.now },
    walk.timeline,
    settled.flatMap((r) => (r.vouched ? [r.vouched] : [])),
  );
  if (rewritten.size) unvouch(ctx.graph, settled, rewritten);
  fileStates.flush?.();
  walk.shared.flush();
  // Uploads ran beside the build; each is bounded by the remote's timeouts.
  await Promise.all(walk.uploads);
  const items = settled.map((r) => r.item);
  const gate = evaluateGate(items);
  const actions = settled.flatMap((r) => (r.action ? [r.action] : []));
  const ran = actions.filter((a) => a.status !== 'cached' && a.run !== null).length;
  const cached = actions.filter((a) => a.status === 'cached').length;
  const ms = Math.round(performance.now() - t0);
  walk.emit(
    makeEvent({
      type: 'cycle.settled',
      status: gate.status,
      ran,
      cached,
      ms,
      ...(opts.cycle === undefined ? {} : { cycle: opts.cycle }),
      gate,
    }),
  );
  return {
    schema: 'vkit.build/1',
    actions,
    gate,
    stats: {
      ran,
      cached,
      hashed: counter.hashed,
      reused_hashes: counter.reused,
      ...(ctx.remote ? { remote_hits: actions.filter((a) => a.remote?.state === 'hit').length } : {}),
      ms,
    },
  };
}

/**
 * Turns the items of results whose outputs were written over into STALE ones, and their dependents
 * (in graph order, direct or not) BLOCKED, as the next `vkit gate` will see them. A dependent
 * already held back by another dependency keeps the item it has.
 */
function unvouch(ag: ActionGraph, settled: NodeResult[], reasons: ReadonlyMap<string, string>): void {
  const byLabel = new Map(ag.order.map((label, i) => [label, settled[i]!]));
  const changed = new Set<string>();
  const held = (r: NodeResult, status: ItemStatus, reason: string): void => {
    r.item = { id: r.item.id, required: r.item.required, status, reason, run: null, receipt: null };
  };
  for (const label of ag.order) {
    const r = byLabel.get(label)!;
    const stale = reasons.get(label);
    if (stale) {
      held(r, 'STALE', stale);
      changed.add(label);
      continue;
    }
    const first = ag.graph.inNeighbors(label).find((d) => byLabel.get(d)!.item.status !== 'PASS');
    if (first === undefined || !changed.has(first)) continue;
    held(r, 'BLOCKED', `dependency ${first} is ${byLabel.get(first)!.item.status}`);
    changed.add(label);
  }
}
