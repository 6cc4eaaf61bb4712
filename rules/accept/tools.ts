/** The MCP tools the accept kind adds: checking a decision and rendering a record, as the CLI's verbs do. */
import { resolve } from 'node:path';
import * as z from 'zod';
import { defineTool, type ToolContextBase } from '../../src/kit/tool.js';
import { checkDecision } from './service/decision.js';
import { renderFiles } from './service/render.js';

/** Arguments every acceptance tool shares, named as the CLI's flags. */
const acceptanceDocs = {
  spec: z.string().min(1).describe('The specification document, relative to root.'),
  package: z.string().min(1).describe('The package document (acceptance.toml), relative to root.'),
  root: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Directory the documents and the paths inside them are relative to (default: the server's project root).",
    ),
  stores: z
    .record(z.string(), z.string())
    .optional()
    .describe('Acceptor stores: acceptor NAME -> DIR holding <crate>/acceptance-*.toml (like --store NAME=DIR).'),
  trees: z
    .record(z.string(), z.string())
    .optional()
    .describe("COMMIT -> DIR where that commit's bytes can be read (like --tree COMMIT=DIR)."),
};

function acceptancePlaces(
  a: { root?: string; stores?: Record<string, string>; trees?: Record<string, string> },
  ctx: ToolContextBase,
) {
  const root = resolve(ctx.root, a.root ?? '.');
  const under = (m: Record<string, string> | undefined) =>
    Object.fromEntries(Object.entries(m ?? {}).map(([k, d]) => [k, resolve(root, d)]));
  return { root, stores: under(a.stores), trees: under(a.trees) };
}

export const acceptanceTools = {
  acceptance_check_decision: defineTool({
    forSections: ['acceptance'],
    description:
      "Check an acceptance decision against its specification and package (like `vkit acceptance check-decision`): re-validates both documents, recomputes every hash and the subject, checks dispositions, runs, conditions and the verdict table, recursively checks a stack's libraries; with effect, judges whether a publish/deploy gate may act today (or on `now`). Returns the `vkit.acceptance-decision-check/1` report plus exit_code (as the CLI: 0 valid (or effect-eligible), 1 invalid, stale or ineligible, 3 indeterminate). Read-only.",
    readOnly: true,
    input: z.strictObject({
      ...acceptanceDocs,
      decision: z.string().min(1).describe('The decision document, relative to root.'),
      effect: z.boolean().optional().describe('Also judge effect (like --effect).'),
      now: z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}$/)
        .optional()
        .describe('The UTC date effect is judged on (YYYY-MM-DD, default today); only with effect.'),
      allow_conditions: z
        .boolean()
        .optional()
        .describe('Let accepted-with-conditions be effect-eligible (like --allow-conditions); only with effect.'),
    }),
    handler: async (a, ctx) => {
      const o = await checkDecision({
        ...acceptancePlaces(a, ctx),
        spec: a.spec,
        package: a.package,
        decision: a.decision,
        effect: a.effect ? { now: a.now, allowConditions: a.allow_conditions } : undefined,
      });
      return { ...o.json, exit_code: o.exitCode };
    },
  }),

  acceptance_render: defineTool({
    forSections: ['acceptance'],
    description:
      "Render an acceptance record as Markdown (like `vkit acceptance render S P [D]`): requirements with floors, claims, computed coverage, the decision's dispositions and conditions; for a stack the relation table and stack lines. Returns {markdown, status, exit_code} (exit_code as the CLI: 0 valid, 1 invalid or stale, 3 indeterminate). Read-only.",
    readOnly: true,
    input: z.strictObject({
      ...acceptanceDocs,
      decision: z.string().min(1).optional().describe('The decision document (optional).'),
    }),
    handler: async (a, ctx) => {
      const o = await renderFiles({
        ...acceptancePlaces(a, ctx),
        spec: a.spec,
        package: a.package,
        decision: a.decision,
      });
      return { ...o.json, exit_code: o.exitCode };
    },
  }),
};
