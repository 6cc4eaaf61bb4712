/**
 * A user rule as the main thread sees it when the config runs in its own thread (isolate.ts): each
 * call goes to the rule in that thread and comes back as plain data. `execute` never crosses: a
 * user rule's action runs in a job worker process, which loads the config itself.
 */
import * as v from 'valibot';
import type { RuleCall, RuleDescriptor } from './isolate.js';
import { PlainDataError } from './plain.js';
import type { ActionResult, Rule } from './rule.js';

/** The rule's `attrs` answer from its own schema: the output with defaults, or the issues. */
export type AttrsCheck =
  | { success: true; output: unknown }
  | { success: false; issues: { path: string; message: string }[] };

function unwrap(answer: ReturnType<RuleCall>): unknown {
  if (!answer.ok) throw new Error(answer.error);
  return answer.value;
}

/** Inline execution (tests with fault hooks) happens in this process, where a hosted rule's code is not. */
async function notHere(kind: string): Promise<ActionResult> {
  return {
    outcome: 'BLOCKED',
    claim: 'unknown',
    reason: `user rule \`${kind}\` executes only in a worker process`,
    artifacts: [],
  };
}

export function hostedRule(d: RuleDescriptor, call: RuleCall): Rule {
  const rule: Rule = {
    kind: d.kind,
    version: d.version,
    // Never parsed here: `hostedAttrs` asks the rule's own schema in its thread.
    attrs: v.unknown(),
    plan(node, deps) {
      const p = unwrap(call('plan', d.kind, { node, deps })) as
        | { definition: Record<string, unknown>; env: string[]; execute: boolean }
        | { shape: string }
        | { notPlain: string };
      if ('shape' in p) return p as never; // the guard names what plan() returned
      if ('notPlain' in p) throw new PlainDataError(p.notPlain);
      return {
        definition: p.definition,
        env: p.env,
        ...(p.execute ? { execute: () => notHere(d.kind) } : {}),
      } as ReturnType<Rule['plan']>;
    },
  };
  if (d.tool) rule.tool = (attrs) => unwrap(call('tool', d.kind, { attrs })) as ReturnType<NonNullable<Rule['tool']>>;
  if (d.judge)
    rule.judge = (result, today) =>
      unwrap(call('judge', d.kind, { result, today })) as ReturnType<NonNullable<Rule['judge']>>;
  return rule;
}

export function hostedAttrs(call: RuleCall, kind: string, value: unknown): AttrsCheck {
  const answer = call('attrs', kind, { value });
  if (!answer.ok) return { success: false, issues: [{ path: '', message: answer.error }] };
  const r = answer.value as { ok: boolean; output?: unknown; issues?: { path: string; message: string }[] };
  return r.ok ? { success: true, output: r.output } : { success: false, issues: r.issues ?? [] };
}
