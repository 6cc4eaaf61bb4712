/**
 * `accept` (section `acceptance`, gate item `accept:<id>`): an acceptance record (specification ->
 * package -> decision, stacked across the libraries of a Cargo workspace). When the workspace opens
 * the record expands (lib/graph.ts) into a node per library of its stack
 * (`accept:<id>/<crate>`, rule `accept`) and, with `run_commands`, one per claim's self_verify
 * command (`accept:<id>/run:<claim>`, rule `self-verify`); the record's own node depends on them.
 * The kind also adds the `vkit acceptance <verb>` verbs (`verbs.ts`, handlers in `cli.ts`) and the
 * MCP tools `acceptance_check_decision` and `acceptance_render` (`tools.ts`); its library is `lib/`
 * (the documents' formats, checks, decisions, stacks, migration) and its operations `service/`.
 */
import { selectorIssues } from '../../src/capture/selector.js';
import { bindVerb } from '../../src/kit/verb.js';
import * as verbs from './verbs.js';
import { defineKind, type KindNode } from '../../src/config/kind.js';
import type { Issue } from '../../src/errors.js';
import { AcceptanceSchema, type AcceptanceConfig, type ResolvedAcceptance } from './schema.js';

/** In the order `vkit --help` lists them. */
const ACCEPTANCE_VERBS = [
  'digest',
  'check',
  'checkSpec',
  'checkPackage',
  'coverage',
  'decide',
  'checkDecision',
  'render',
  'migrate',
  'run',
  'witness',
] as const;

export const acceptKind = defineKind<ResolvedAcceptance, 'acceptance', AcceptanceConfig>({
  name: 'accept',
  section: 'acceptance',
  entry: AcceptanceSchema,
  rules: {
    accept: async () => (await import('./rule.js')).acceptRule,
    'self-verify': async () => (await import('./self-verify.js')).selfVerifyRule,
  },
  // Labels a record expands into (`accept:<id>/<crate>`, `accept:<id>/run:<claim>`) hold a `/`, which no id can.
  label: (a) => `accept:${a.id}`,
  verbs: ACCEPTANCE_VERBS.map((name) => bindVerb(verbs[name], async () => (await import('./cli.js'))[name])),
  tools: async () => (await import('./tools.js')).acceptanceTools,
  // Acceptance items judge their own reads: the accept action is BLOCKED on any file it reads outside
  // its capture, and most of its inputs are derived, where no `!` could be written. So only what is
  // missing is a config error here, never what git ignores.
  async open(a, at, ctx) {
    const { acceptanceInputs } = await import('./lib/inputs.js');
    const { expandAcceptance } = await import('./lib/graph.js');
    const issues: Issue[] = [];
    a.inputs ??= acceptanceInputs(ctx.root, a);
    issues.push(...selectorIssues(a.inputs, ctx.files, `${at}.inputs`, ctx.shown));
    a.expansion = expandAcceptance(ctx.root, a, ctx.files);
    for (const n of a.expansion.nodes)
      issues.push(...selectorIssues(n.inputs, ctx.files, `${at} (${n.label}) inputs`, ctx.shown));
    return issues;
  },
  expand(a) {
    // The record's library and self_verify nodes, each a requirement, then the record itself.
    const { expansion, ...attrs } = a;
    const nodes: KindNode[] = (expansion?.nodes ?? []).map((n) => ({
      label: n.label,
      kind: n.kind,
      id: n.id,
      attrs: n.attrs,
      inputs: n.inputs,
      hash: 'raw',
      required: true,
      after: n.after,
    }));
    nodes.push({
      label: `accept:${a.id}`,
      kind: 'accept',
      id: a.id,
      attrs: attrs as unknown as Record<string, unknown>,
      inputs: a.inputs ?? [a.spec, a.package, a.decision],
      hash: 'raw',
      required: true,
      after: expansion?.after ?? [],
    });
    return nodes;
  },
});
