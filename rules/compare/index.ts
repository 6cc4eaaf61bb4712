/**
 * `compare` (section `compare`, gate item `compare:<id>`): a finite model comparison whose result
 * must equal `expect`. The request file is the node's only captured input. The kind also adds
 * `vkit model compare` (`verbs.ts`) and the MCP tool `model_compare` (`tools.ts`); its library is
 * `lib/` (the request's validation, the comparison and its report).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { selectorIssues } from '../../src/capture/selector.js';
import { defineKind } from '../../src/config/kind.js';
import { CompareSchema } from './schema.js';
import { bindVerb } from '../../src/kit/verb.js';
import { modelCompare } from './verbs.js';

export const compareKind = defineKind({
  name: 'compare',
  section: 'compare',
  entry: CompareSchema,
  rules: { compare: async () => (await import('./rule.js')).compareRule },
  verbs: [bindVerb(modelCompare, async () => (await import('./cli.js')).modelCompare)],
  tools: async () => (await import('./tools.js')).compareTools,
  label: (c) => `compare:${c.id}`,
  // An invalid comparison request is a config error (exit 2), named by its file and JSON path.
  async open(c, at, ctx) {
    const missing = selectorIssues([c.request], ctx.files, `${at}.request`, ctx.shown, ctx.ignored);
    if (missing.length) return missing;
    // The model code loads only for manifests that compare (a no-op build of plain checks never does).
    const { requestTextIssues } = await import('./lib/index.js');
    const issues = requestTextIssues(readFileSync(join(ctx.root, c.request), 'utf8'));
    return issues.map((i) => ({ ...i, file: relative(process.cwd(), join(ctx.root, c.request)) }));
  },
  // Comparisons name one plain file: a linked request is the rule's to refuse (BLOCKED), so not `declared`.
  expand: (c) => [
    {
      label: `compare:${c.id}`,
      kind: 'compare',
      id: c.id,
      attrs: c as unknown as Record<string, unknown>,
      inputs: [c.request],
      required: true,
      after: [],
    },
  ],
});
