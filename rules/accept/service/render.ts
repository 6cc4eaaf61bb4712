/** `vkit acceptance render S P [D]`: check the documents, then print the Markdown view. */
import { resolve } from 'node:path';
import { judgeDecision } from '../lib/decision.js';
import type { DecisionContext } from '../lib/model.js';
import { checkPackage } from '../lib/recursive-checks.js';
import { decidingFindings, renderRecord } from '../lib/render.js';
import type { Outcome } from '../lib/report.js';
import { readDoc } from '../lib/toml.js';
import { refuseVersion03 } from '../lib/versions.js';
import { decisionVerdictLine } from './decision.js';
import { packageVerdictLine } from './package.js';

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
 * decision stale, 3 when indeterminate, 2 for unreadable input. A view over documents that are not
 * valid still prints, and says so: its verdict and the findings that decide it (the first ten)
 * open the Markdown and also go to stderr, where a reader who redirects the view to a file sees them.
 * The package is checked once: the view, its coverage and the decision's judgement read that one check.
 */
export async function renderFiles(
  req: RenderRequest,
): Promise<Outcome<{ schema: 'vkit.acceptance-render/1'; markdown: string; status: string }>> {
  const at = (file: string) => ({ abs: resolve(req.root, file), file });
  const ctx: DecisionContext = { root: req.root, stores: req.stores, trees: req.trees };
  const specDoc = await readDoc(at(req.spec).abs, req.spec);
  const pkgDoc = await readDoc(at(req.package).abs, req.package);
  const decisionDoc = req.decision ? await readDoc(at(req.decision).abs, req.decision) : undefined;
  if (decisionDoc) refuseVersion03(decisionDoc);
  const pkgCheck = await checkPackage(pkgDoc, specDoc, ctx);
  const spec = { data: specDoc.data, check: pkgCheck.spec };
  const pkg = { data: pkgDoc.data, check: pkgCheck };
  const decision = decisionDoc && {
    data: decisionDoc.data,
    check: judgeDecision(decisionDoc, specDoc, pkgDoc, pkgCheck, ctx),
  };
  const status = decision ? decision.check.status : pkg.check.status;
  const verdict =
    status === 'valid'
      ? []
      : [
          decision
            ? decisionVerdictLine(decision.check, req.decision!)
            : packageVerdictLine(pkg.check, req.package, req.spec),
          ...decidingFindings((decision?.check ?? pkg.check).findings.list, status),
        ];
  const lines = renderRecord({ spec, pkg, decision, verdict });
  const exitCode = status === 'valid' ? 0 : status === 'indeterminate' ? 3 : 1;
  return {
    exitCode,
    lines,
    stderr: verdict,
    json: { schema: 'vkit.acceptance-render/1', markdown: `${lines.join('\n')}\n`, status },
  };
}
