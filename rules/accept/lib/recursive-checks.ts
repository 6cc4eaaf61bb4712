/**
 * The document checks that recurse, tied together here: `checkDecisionFiles` reads a decision's
 * three documents, checks the package against the specification (package.ts, which also recomputes
 * the subject and runs the stack check of chain requirements) and judges the decision
 * (`judgeDecision`, decision.ts). The stack check (stack/chain.ts) is handed `checkDecisionFiles`
 * and checks every library's decision with it, under any root: so package.ts, stack/chain.ts and
 * decision.ts each import only downward. Neither function prints.
 */
import { judgeDecision } from './decision.js';
import { FileReads } from './file-reads.js';
import type { DecisionCheck, DecisionContext, DecisionPaths, PackageCheck } from './model.js';
import { checkPackageWith } from './package.js';
import { readDoc, type Doc } from './toml.js';
import { refuseVersion03 } from './versions.js';

/** `check-package P --spec S`: is the package a valid answer to the specification (package.ts)? */
export function checkPackage(pkg: Doc, spec: Doc, ctx: DecisionContext): Promise<PackageCheck> {
  return checkPackageWith(pkg, spec, withReads(ctx), checkDecisionFiles);
}

/** The context with the reads of this one command: each file read and hashed once, however often cited. */
const withReads = (ctx: DecisionContext): DecisionContext => (ctx.files ? ctx : { ...ctx, files: new FileReads() });

/** `check-decision`: a decision is valid only if everything it decided about is valid and current. */
export async function checkDecisionFiles(paths: DecisionPaths, ctx: DecisionContext): Promise<DecisionCheck> {
  const specDoc = await readDoc(paths.spec.abs, paths.spec.file);
  const pkgDoc = await readDoc(paths.package.abs, paths.package.file);
  const decisionDoc = await readDoc(paths.decision.abs, paths.decision.file);
  for (const doc of [specDoc, pkgDoc, decisionDoc]) refuseVersion03(doc);
  const reads = withReads(ctx);
  const pkg = await checkPackage(pkgDoc, specDoc, reads);
  return judgeDecision(decisionDoc, specDoc, pkgDoc, pkg, reads);
}
