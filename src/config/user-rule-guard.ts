/**
 * User rules as the engine and workers call them: what the user's code throws or returns malformed
 * becomes a config error naming the rule, and its judge can never make a receipt look better.
 */
import { invalid } from '../errors.js';
import { jsonId } from '../hash/index.js';
import { describeThrown, plainData, PlainDataError } from './plain.js';
import type { PlannedAction, Rule } from './rule.js';

const JUDGED = new Set(['PASS', 'FAIL', 'BLOCKED', 'STALE']);

/**
 * A user rule as the engine and workers call it. Its code is the user's: a throw or a malformed value
 * from `plan` or `tool` is a config error (exit 2) naming the rule, never an internal error. Its `judge`
 * may only keep or worsen what the receipt says: a PASS needs a PASS receipt (an established claim
 * from a completed attempt), so a judge that answers PASS for a FAIL or BLOCKED receipt is ignored;
 * a judge that throws or answers something else leaves the item BLOCKED.
 */
export function guardUserRule(rule: Rule, shown: string): Rule {
  const fail = (what: string, label: string | undefined, detail: string) =>
    invalid(
      'ERR_RULE_INVALID',
      `Rule \`${rule.kind}\` ${what}${label ? ` for \`${label}\`` : ''}: ${detail}`,
      { file: shown },
      'Fix the rule registered in your config.',
    );
  const notData = (label: string, error: unknown) =>
    fail(
      'planned a definition that is not plain JSON data',
      label,
      `${describeThrown(error)}; plan() must return data only (it enters the action key)`,
    );
  const guarded: Rule = {
    kind: rule.kind,
    version: rule.version,
    attrs: rule.attrs,
    plan(node, deps) {
      let planned: PlannedAction;
      try {
        planned = rule.plan(node, deps);
      } catch (error) {
        // A hosted rule's definition is copied in its thread, which says when it is not data.
        if (error instanceof PlainDataError) throw notData(node.label, error);
        throw fail('threw while planning', node.label, describeThrown(error));
      }
      const p = planned as Partial<PlannedAction> | null | undefined;
      if (
        typeof p !== 'object' ||
        p === null ||
        typeof p.definition !== 'object' ||
        p.definition === null ||
        Array.isArray(p.definition)
      )
        throw fail(
          'planned nothing usable',
          node.label,
          'plan() must return { definition: {...}, env: [...], execute }',
        );
      if (!Array.isArray(p.env) || !p.env.every((n) => typeof n === 'string'))
        throw fail('planned nothing usable', node.label, 'plan() must return `env` as an array of variable names');
      if (typeof p.execute !== 'function')
        throw fail('planned nothing usable', node.label, 'plan() must return an `execute` function');
      try {
        plainData(p.definition, 'definition');
      } catch (error) {
        throw notData(node.label, error);
      }
      try {
        jsonId(p.definition);
      } catch (error) {
        throw fail('planned a definition with no JSON form', node.label, describeThrown(error));
      }
      return planned;
    },
  };
  if (rule.tool) {
    const tool = rule.tool.bind(rule);
    guarded.tool = (attrs) => {
      let t: ReturnType<NonNullable<Rule['tool']>>;
      try {
        t = tool(attrs);
      } catch (error) {
        throw fail('threw in tool()', undefined, describeThrown(error));
      }
      if (
        t !== undefined &&
        (typeof t !== 'object' ||
          t === null ||
          typeof t.argv0 !== 'string' ||
          t.argv0 === '' ||
          typeof t.shell !== 'boolean')
      )
        throw fail('returned an unusable tool()', undefined, 'expected undefined or { argv0: string, shell: boolean }');
      return t;
    };
  }
  if (rule.judge) {
    const judge = rule.judge.bind(rule);
    guarded.judge = (result, today) => {
      let judged: ReturnType<NonNullable<Rule['judge']>>;
      try {
        judged = judge(result, today);
      } catch (error) {
        return { status: 'BLOCKED', reason: `rule \`${rule.kind}\` judge() threw: ${describeThrown(error)}` };
      }
      if (judged === undefined) return undefined;
      if (typeof judged !== 'object' || judged === null || !JUDGED.has(judged.status))
        return {
          status: 'BLOCKED',
          reason: `rule \`${rule.kind}\` judge() answered ${JSON.stringify(judged?.status ?? judged)}, not PASS, FAIL, BLOCKED or STALE`,
        };
      // Never better than the receipt: the engine refuses a judged PASS over any other outcome, for every rule.
      return {
        status: judged.status,
        reason: typeof judged.reason === 'string' ? judged.reason : String(judged.status),
      };
    };
  }
  return Object.freeze(guarded);
}
