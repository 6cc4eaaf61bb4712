/**
 * `vkit acceptance render S P [D]`: a Markdown view of a record, computed (never copied) from the
 * checks: the requirements with their floors, the claims answering each, the computed coverage, and
 * the decision's disposition and conditions. For a stack, the relation table comes first and the
 * stack lines last, in the shape acceptance-details.md section 4 fixes. Pure: takes the checks' results.
 */
import type { DecisionCheck, PackageCheck, SpecificationCheck, StackReport } from './model.js';
import { str, table, tables, type Table } from './toml.js';

export interface RenderInput {
  spec: { data: Table; check: SpecificationCheck };
  pkg: { data: Table; check: PackageCheck };
  decision?: { data: Table; check: DecisionCheck };
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderRecord(input: RenderInput): string[] {
  const { spec, pkg, decision } = input;
  const lines: string[] = [];
  const doc = table(spec.data, 'document');
  const subject = table(pkg.data, 'subject');
  lines.push(`# Acceptance: ${str(doc, 'id') ?? '(no id)'} v${String(doc?.version ?? '?')} -> ${str(subject, 'name') ?? '(unnamed subject)'}`);
  lines.push('');
  // NOTEs about how the subject was checked (a tree checkout lacking the commit) come before the stack table.
  const notes = [...pkg.check.findings.list, ...(decision?.check.findings.list ?? [])].filter((f) => f.level === 'NOTE' && f.message.startsWith('tree checkout'));
  for (const n of new Set(notes.map((n) => n.message))) lines.push(`NOTE ${n}`);
  if (notes.length) lines.push('');
  const stack = decision?.check.stack ?? pkg.check.stack;
  if (stack) lines.push(...relationTable(stack), '');

  const dispositions = new Map(tables(decision?.data, 'disposition').map((d) => [str(d, 'requirement') ?? '', d]));
  const conditions = tables(decision?.data, 'condition');
  const claimsOf = (req: string) => pkg.check.format.claims.filter((c) => c.clause === req);
  const coverage = new Map(pkg.check.coverage.requirements.map((r) => [r.requirement, r]));
  lines.push('| Requirement | Mandatory | Floor | Claims | Coverage | Disposition | Conditions |', '|---|---|---|---|---|---|---|');
  for (const r of spec.check.requirements) {
    const e = r.evidence;
    const floor = r.kind === 'chain' ? 'chain' : [e.min_tier ?? 'any tier', e.weighted_required ? 'weighted' : 'unweighted ok', e.control_required ? 'control' : '', e.freshness === 'delivered-revision' ? 'fresh' : '', e.independence !== 'none' ? e.independence : '', e.methods.length ? `methods ${e.methods.join('/')}` : ''].filter(Boolean).join(', ');
    const claims = claimsOf(r.id).map((c) => `${c.id} (${c.status}${c.tier ? ` ${c.tier}` : ''}${c.weightGranted ? ' weighted' : ''})`).join(', ') || '-';
    const cov = coverage.get(r.id);
    const d = dispositions.get(r.id);
    const conds = conditions.filter((c) => str(c, 'requirement') === r.id).map((c) => `${str(c, 'id') ?? '?'} due ${String(c.due ?? '?')}`).join(', ');
    lines.push(`| ${cell(r.id)} | ${r.mandatory ? 'yes' : 'no'} | ${cell(floor)} | ${cell(claims)} | ${cov ? `${cov.status}${cov.basis.length ? ` (${cov.basis.join(', ')})` : ''}` : '-'} | ${cell(str(d, 'status') ?? '-')} | ${cell(conds || '-')} |`);
  }
  const c = pkg.check.coverage;
  lines.push('', `coverage: mandatory ${c.mandatory.met}/${c.mandatory.total}, optional ${c.optional.met}/${c.optional.total}, acceptable=${c.acceptable}`);
  if (decision) {
    const d = table(decision.data, 'document');
    lines.push(`decision: ${str(d, 'verdict') ?? '(no verdict)'} by ${issuerText(table(d, 'issuer'))} at ${str(d, 'issued_at') ?? '?'} (${decision.check.status})`);
    if (decision.check.effect) lines.push(`${decision.check.effect.eligible ? 'EFFECT-ELIGIBLE' : 'EFFECT-INELIGIBLE'}: ${decision.check.effect.reason}`);
  } else lines.push('decision: none presented');
  if (stack) lines.push('', ...stackLines(stack, decision));
  return lines;
}

function issuerText(issuer: Table | undefined): string {
  return issuer ? `${str(issuer, 'name') ?? '?'} / ${str(issuer, 'role') ?? '?'}` : '(no issuer)';
}

/** All five relations in order; Boundary (elements declared outside the checked boundary) and Gaps list element names. */
export function relationTable(stack: StackReport): string[] {
  return ['| Relation | Inventories / completeness | Boundary | Gaps |', '|---|---|---|---|', ...stack.relations.map((r) => `| ${r.relation} | ${r.inventories} | ${r.boundary.join(', ')} | ${r.gaps.join(', ')} |`)];
}

/**
 * The closing lines. "stack accepted" is printed only for a passing stack under a valid decision;
 * anything else says plainly that the stack is not accepted, and why.
 */
export function stackLines(stack: StackReport, decision: RenderInput['decision']): string[] {
  const covered = stack.relations.filter((r) => r.inventories !== 'uncovered');
  const uncovered = stack.relations.filter((r) => r.inventories === 'uncovered').map((r) => r.relation);
  const over = [...new Set(covered.map((r) => r.inventories.split(' / ')[0]))].join(', ');
  const issuedAt = str(table(decision?.data, 'document'), 'issued_at');
  const lines: string[] = [];
  if (stack.status === 'pass' && decision?.check.status === 'valid') lines.push(`stack accepted over ${over} for ${covered.map((r) => r.relation).join(', ')} at ${issuedAt ?? '?'}`);
  else {
    const why = stack.elements.filter((e) => e.status !== 'accepted' && e.status !== 'boundary').map((e) => `${e.name}: ${e.reason ?? e.status}`);
    lines.push(`stack NOT accepted (${stack.status}${decision ? `, decision ${decision.check.status}` : ', no decision'})${why.length ? `: ${why.join('; ')}` : ''}`);
  }
  lines.push(`not covered (trusted as the base, not checked): ${uncovered.join(', ') || '(none)'}`);
  // Declared outside the checked boundary: listed, never counted as accepted.
  const outside = stack.elements.filter((e) => e.status === 'boundary');
  if (outside.length) lines.push(`outside the checked boundary (listed, not accepted): ${outside.map((e) => `${e.name} (${e.reason ?? 'no reason'})`).join(', ')}`);
  const issuers: string[] = [];
  for (const e of stack.elements) if (e.issuer && !issuers.includes(`${e.issuer.name} / ${e.issuer.role}`)) issuers.push(`${e.issuer.name} / ${e.issuer.role}`);
  if (issuers.length) lines.push(`accepted by ${issuers.join(', ')} under their own specifications`);
  for (const e of stack.elements) if (e.binding) lines.push(`${e.name}: declared binding: ${e.binding}`);
  lines.push('The label combines no assurance levels across the stack. Each element was accepted at its own floor; no failure bound for the whole stack follows.');
  return lines;
}
