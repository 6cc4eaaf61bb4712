/**
 * `accept`: an acceptance record (specification -> package -> decision, and for a stack every
 * library's own record) checked as a cached action. The action re-validates the documents,
 * recomputes every hash and subject from the captured bytes and keeps the facts that decide
 * effect (each decision's table and its specification's `stale_after`). Effect itself is judged by
 * `judge` at every gate evaluation with that day's UTC date, which never enters a key: a decision
 * that expires is seen the day after, even by a watch session that never reruns the action.
 *
 * The same rule checks a library of a stack on its own (`accept:<id>/<crate>`, made by
 * lib/graph.ts: documents in the acceptor store, --root = the workspace root). Claims'
 * self_verify commands are never run here: with `run_commands` each is its own `self-verify` node,
 * which the record's node depends on.
 *
 * Outcomes: a valid decision whose verdict accepts -> PASS (then judged for effect); a rejected or
 * evidence-requested verdict or an invalid record -> FAIL; a stale binding -> STALE ("renewed
 * decision required"); indeterminate (registry crates, unresolvable references) -> BLOCKED.
 */
import { isAbsolute, join, posix, relative, sep } from 'node:path';
import * as v from 'valibot';
import { defineRule, type ActionResult } from '../../src/config/rule.js';
import { checkDecisionFiles } from './lib/recursive-checks.js';
import { judgeEffect } from './lib/effect.js';
import type { DecisionCheck, SpecificationCheck } from './lib/model.js';
import { findingLine } from './lib/report.js';
import { checkSpecification } from './lib/specification.js';
import { readDoc, type Table } from './lib/toml.js';
import { subjectRootOf } from './lib/inputs.js';
import { AcceptanceSchema } from './schema.js';
import { collectReads } from './lib/reads.js';

/** Bumped whenever what an acceptance PASS means changes, so earlier evidence is not reused. */
export const ACCEPTANCE_SEMANTICS = 'vkit.acceptance/0.4.0';

/** What `judge` needs from the receipt: one entry per decision whose effect matters (the record's own, then each library's). */
interface EffectFacts {
  name: string;
  decision: Table;
  spec_stale_after?: string;
}

/** A manifest item's attributes; a library node's id is `<item id>/<crate>`, which no manifest id can be. */
export const AcceptAttrs = v.strictObject({
  ...AcceptanceSchema.entries,
  id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)?$/)),
});

export const acceptRule = defineRule({
  kind: 'accept',
  version: 1,
  attrs: AcceptAttrs,
  plan(node) {
    const a = node.attrs;
    return {
      definition: {
        id: a.id,
        root: a.root,
        spec: a.spec,
        package: a.package,
        decision: a.decision,
        acceptors: a.acceptors,
        tree: a.tree ?? null,
        allow_conditions: a.allow_conditions,
        run_commands: a.run_commands,
        semantics: ACCEPTANCE_SEMANTICS,
      },
      env: [],
      async execute(io): Promise<ActionResult> {
        // The key covers only captured bytes: a subject root outside the capture could change unseen.
        const subjectRoot = subjectRootOf(io.root, a);
        if (!coversDir(a.inputs ?? [], subjectRoot))
          return {
            outcome: 'BLOCKED',
            claim: 'unknown',
            reason: `the subject root \`${subjectRoot}\` is not among the action's inputs: add \`${subjectRoot}/**\` to acceptance inputs`,
            artifacts: [],
          };

        const root = join(io.root, a.root);
        const doc = (p: string) => ({ abs: join(io.root, p), file: posix.relative(a.root, p) || p });
        const stores = Object.fromEntries(Object.entries(a.acceptors).map(([name, dir]) => [name, join(io.root, dir)]));
        const trees = a.tree
          ? { [a.tree.slice(0, a.tree.indexOf('='))]: join(io.root, a.tree.slice(a.tree.indexOf('=') + 1)) }
          : {};
        const { value: check, reads } = await collectReads(() =>
          checkDecisionFiles(
            { spec: doc(a.spec), package: doc(a.package), decision: doc(a.decision) },
            { root, stores, trees },
          ),
        );
        // Every byte the check read must be in the key: a file outside the capture (a secret-looking
        // name, a nested `target/`, one explicit inputs leave out) could change under a cached PASS.
        const captured = new Set(node.capture.files.map((f) => f.path));
        const uncaptured = [...reads]
          .map((abs) => relative(io.root, abs))
          .filter((rel) => !captured.has(rel.split(sep).join('/')))
          .sort();
        if (uncaptured.length) {
          const shown =
            uncaptured[0]!.startsWith('..') || isAbsolute(uncaptured[0]!)
              ? uncaptured[0]!
              : uncaptured[0]!.split(sep).join('/');
          return {
            outcome: 'BLOCKED',
            claim: 'unknown',
            reason: `the acceptance check read \`${shown}\`${uncaptured.length > 1 ? ` (and ${uncaptured.length - 1} more)` : ''}, which is not among the action's captured inputs, so a change to it would go unseen (secret-looking paths and \`target/\` directories are never captured; otherwise add it to the acceptance inputs)`,
            artifacts: [],
          };
        }
        const saved = await io.putBytes(
          `${JSON.stringify(
            {
              status: check.status,
              verdict: check.verdict ?? null,
              findings: check.findings.list,
              stack: check.stack ?? null,
            },
            null,
            2,
          )}\n`,
        );
        const artifacts = [{ name: 'acceptance.json', ...saved }];
        const effect =
          check.status === 'valid' ? await effectFacts(check, doc(a.decision).abs, doc(a.spec).abs, stores) : [];
        const subject = {
          status: check.status,
          verdict: check.verdict ?? null,
          allow_conditions: a.allow_conditions,
          effect,
        };
        const base = { artifacts, subject, assurance: 'empirical' as const };
        const firstError = check.findings.list.find((f) => f.level === 'ERROR');
        switch (check.status) {
          case 'stale':
            return {
              ...base,
              outcome: 'BLOCKED',
              claim: 'unknown',
              reason: `stale: renewed decision required${firstError ? ` (${firstError.message})` : ''}`,
            };
          case 'indeterminate':
            return {
              ...base,
              outcome: 'BLOCKED',
              claim: 'unknown',
              reason: `indeterminate: ${check.findings.indeterminateReasons[0] ?? 'cannot be decided from the documents at hand'}`,
            };
          case 'invalid':
            return {
              ...base,
              outcome: 'FAIL',
              claim: 'refuted',
              reason: `invalid acceptance record: ${firstError ? findingLine(firstError) : 'see acceptance.json'}`,
            };
        }
        if (check.verdict !== 'accepted' && !(check.verdict === 'accepted-with-conditions' && a.allow_conditions)) {
          return {
            ...base,
            outcome: 'FAIL',
            claim: 'refuted',
            reason: `decision verdict is ${check.verdict ?? '(none)'}${check.verdict === 'accepted-with-conditions' ? ' (allow_conditions is false)' : ''}`,
          };
        }
        return { ...base, outcome: 'PASS', claim: 'established' };
      },
    };
  },
  judge(result, today) {
    const s = result.subject as { status?: string; allow_conditions?: boolean; effect?: EffectFacts[] } | undefined;
    if (s?.status === 'stale') return { status: 'STALE', reason: result.reason ?? 'stale: renewed decision required' };
    if (result.outcome !== 'PASS') return undefined;
    // A PASS without the facts to judge effect is not trusted (fail closed).
    if (!s?.effect?.length)
      return { status: 'BLOCKED', reason: 'the receipt carries no effect facts: rebuild with this vkit' };
    for (const f of s.effect) {
      const spec = { staleAfter: f.spec_stale_after } as SpecificationCheck;
      const e = judgeEffect(f.decision, spec, { now: today, allowConditions: s.allow_conditions ?? false }, 'valid');
      if (!e.eligible) {
        const expired = /expired|lapsed/.test(e.reason);
        return {
          status: expired ? 'STALE' : 'BLOCKED',
          reason: `${f.name}: EFFECT-INELIGIBLE: ${e.reason}${expired ? ' (renewed decision required)' : ''}`,
        };
      }
    }
    return { status: 'PASS', reason: `accepted, effect-eligible on ${today}` };
  },
});

/** Whether a positive glob takes in everything under `dir` (`**`, or `D/**` with D at or above dir). */
function coversDir(globs: readonly string[], dir: string): boolean {
  return globs.some(
    (g) => g === '**' || (g.endsWith('/**') && (dir === g.slice(0, -3) || dir.startsWith(`${g.slice(0, -3)}/`))),
  );
}

/** The record's decision and every accepted library's, with their specifications' `stale_after`. */
async function effectFacts(
  check: DecisionCheck,
  decision: string,
  spec: string,
  stores: Record<string, string>,
): Promise<EffectFacts[]> {
  const facts: EffectFacts[] = [await factsOf('the record', decision, spec)];
  for (const el of check.stack?.elements ?? []) {
    if (el.status !== 'accepted' || !el.acceptor || !stores[el.acceptor]) continue;
    const dir = join(stores[el.acceptor]!, el.name);
    facts.push(
      await factsOf(el.name, join(dir, 'acceptance-decision.toml'), join(dir, 'acceptance-specification.toml')),
    );
  }
  return facts;
}

async function factsOf(name: string, decision: string, spec: string): Promise<EffectFacts> {
  const d = await readDoc(decision, decision);
  const staleAfter = checkSpecification(await readDoc(spec, spec)).staleAfter;
  return { name, decision: d.data, ...(staleAfter ? { spec_stale_after: staleAfter } : {}) };
}
