/**
 * `compare`: a finite model comparison whose result must equal the declared `expect`. The request
 * file is the node's captured input; the comparison itself is the pure library in `lib/`, run
 * in the worker. Equal to `expect` -> PASS; the other of equivalent/different -> FAIL; incomparable or
 * unknown (a budget ran out) -> BLOCKED, never a pass. Assurance `finite_model`: the result covers the
 * complete declared finite space, nothing beyond it.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineRule, type ActionResult } from '../../src/config/rule.js';
import { CompareSchema } from './schema.js';
import { compareRequestText } from './lib/index.js';

/** Bumped whenever the comparison's meaning changes, so earlier evidence is not reused. */
export const COMPARISON_SEMANTICS = 'vkit.model-compare/1';

export const compareRule = defineRule({
  kind: 'compare',
  // 2: a symlinked request is BLOCKED (version 1 read its target, which the key never covered).
  version: 2,
  attrs: CompareSchema,
  plan(node) {
    const a = node.attrs;
    return {
      definition: { id: a.id, request: a.request, expect: a.expect, semantics: COMPARISON_SEMANTICS },
      env: [],
      async execute(io): Promise<ActionResult> {
        const path = join(io.root, a.request);
        // The capture hashes a symlink as its target string, never the target's bytes: reading through
        // it would judge bytes the key does not cover.
        if (lstatSync(path).isSymbolicLink())
          return {
            outcome: 'BLOCKED',
            reason: `request \`${a.request}\` is a symlink: its target is not captured; point \`request\` at the file itself`,
            claim: 'unknown',
            artifacts: [],
          };
        const outcome = compareRequestText(readFileSync(path, 'utf8'));
        if (!outcome.ok) {
          const first = outcome.issues[0];
          return {
            outcome: 'BLOCKED',
            reason: `request became invalid: ${first?.path ?? ''} ${first?.message ?? ''}`.trim(),
            claim: 'unknown',
            artifacts: [],
          };
        }
        const { report } = outcome;
        const saved = await io.putBytes(`${JSON.stringify(report, null, 2)}\n`);
        const artifacts = [{ name: 'report.json', ...saved }];
        const subject = {
          before: report.models.before.sha256,
          after: report.models.after.sha256,
          result: report.result,
        };
        const base = { artifacts, assurance: 'finite_model' as const, subject };
        if (report.result === a.expect) return { ...base, outcome: 'PASS', claim: 'established' };
        if (report.result === 'equivalent' || report.result === 'different') {
          return {
            ...base,
            outcome: 'FAIL',
            claim: 'refuted',
            reason: `models are ${report.result}, expected ${a.expect}`,
          };
        }
        return {
          ...base,
          outcome: 'BLOCKED',
          claim: 'unknown',
          reason: `comparison ${report.result}: ${report.reason}`,
        };
      },
    };
  },
});
