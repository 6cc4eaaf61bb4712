/** `vkit acceptance render S P [D]`: check the documents, then print the Markdown view. */
import { resolve } from 'node:path';
import { checkDecisionFiles } from '../../acceptance/decision.js';
import type { DecisionContext } from '../../acceptance/model.js';
import { checkPackage } from '../../acceptance/package.js';
import { renderRecord } from '../../acceptance/render.js';
import type { Outcome } from '../../acceptance/report.js';
import { checkSpecification } from '../../acceptance/specification.js';
import { readDoc } from '../../acceptance/toml.js';

export interface RenderRequest {
  root: string;
  spec: string;
  package: string;
  decision?: string;
  stores: Record<string, string>;
  trees: Record<string, string>;
}

/**
 * Exit 0 when the view could be computed from valid documents, 1 when a document is invalid or the
 * decision stale (the view still prints, saying so), 3 when indeterminate, 2 for unreadable input.
 */
export async function renderFiles(req: RenderRequest): Promise<Outcome<{ schema: 'vkit.acceptance-render/1'; markdown: string; status: string }>> {
  const at = (file: string) => ({ abs: resolve(req.root, file), file });
  const ctx: DecisionContext = { root: req.root, stores: req.stores, trees: req.trees };
  const specDoc = await readDoc(at(req.spec).abs, req.spec);
  const pkgDoc = await readDoc(at(req.package).abs, req.package);
  const spec = { data: specDoc.data, check: checkSpecification(specDoc) };
  const pkg = { data: pkgDoc.data, check: await checkPackage(pkgDoc, specDoc, ctx) };
  let decision;
  if (req.decision) {
    const decisionDoc = await readDoc(at(req.decision).abs, req.decision);
    decision = { data: decisionDoc.data, check: await checkDecisionFiles({ spec: at(req.spec), package: at(req.package), decision: at(req.decision) }, ctx) };
  }
  const lines = renderRecord({ spec, pkg, decision });
  const status = decision ? decision.check.status : pkg.check.status;
  const exitCode = status === 'valid' ? 0 : status === 'indeterminate' ? 3 : 1;
  return { exitCode, lines, json: { schema: 'vkit.acceptance-render/1', markdown: lines.join('\n') + '\n', status } };
}
