/**
 * `vkit acceptance render S P [D]`: a Markdown view of a record, computed (never copied) from the
 * checks: the requirements with their floors, the claims answering each, the computed coverage, and
 * the decision's disposition and conditions. For a stack, the relation table comes first and the
 * stack lines last, in the shape acceptance-details.md section 4 fixes. A view over documents that
 * are not valid opens with the verdict and the findings that decide it, so nobody reads the table
 * as an acceptance. Pure: takes the checks' results.
 */
import { summaryLines } from './coverage.js';
import type {
  DecisionCheck,
  PackageCheck,
  RequirementCoverage,
  RequirementView,
  SpecificationCheck,
  StackReport,
} from './model.js';
import { clip, findingLine, type Finding } from './report.js';
import { str, table, tables, type Table } from './toml.js';

export interface RenderInput {
  spec: { data: Table; check: SpecificationCheck };
  pkg: { data: Table; check: PackageCheck };
  decision?: { data: Table; check: DecisionCheck };
  /** For documents that are not valid: the verdict line, then the findings that decide it (`decidingFindings`). */
  verdict?: string[];
}

/** How many deciding findings the verdict block shows before `(and N more)`. */
const SHOWN_FINDINGS = 10;

/** A table cell: one line, pipes escaped, long values cut (`clip`) so a huge id cannot flood the view. */
const cell = (s: string) => clip(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * The findings that make a check's status what it is, as printed lines: its errors, or for an
 * indeterminate check the reasons it cannot be decided; the first ten, then `(and N more)`.
 */
export function decidingFindings(
  findings: readonly Finding[],
  status: 'invalid' | 'stale' | 'indeterminate',
): string[] {
  const deciding = findings.filter((f) =>
    status === 'indeterminate' ? f.level === 'WARN' && f.message.startsWith('INDETERMINATE: ') : f.level === 'ERROR',
  );
  const shown = deciding.slice(0, SHOWN_FINDINGS).map(findingLine);
  return deciding.length > SHOWN_FINDINGS ? [...shown, `(and ${deciding.length - SHOWN_FINDINGS} more)`] : shown;
}

/** The Markdown of the verdict block: the verdict line in bold, the findings as a list. */
function verdictBlock([headline, ...findings]: string[]): string[] {
  return headline === undefined ? [] : [`**${headline}**`, '', ...findings.map((f) => `- ${f}`), ''];
}

/**
 * What a requirement demands: an item's floor, a cross-cutting requirement's demands over the
 * requirements it constrains, or `chain`; then what of it vkit cannot evaluate.
 */
function floorText(r: RequirementView): string {
  const e = r.evidence;
  let floor: string;
  if (r.kind === 'chain') floor = 'chain';
  else if (r.kind === 'cross-cutting') {
    const d = r.demands;
    const demanded = d
      ? [
          d.min_tier ?? '',
          d.weighted_required ? 'weighted' : '',
          d.control_required ? 'control' : '',
          ...Object.entries(d.fields).map(([k, v]) => `${k} starts '${v}'`),
          ...Object.entries(d.fields_exact).map(([k, v]) => `${k} = '${v}'`),
        ].filter(Boolean)
      : [];
    floor = `over ${r.over === 'all' ? 'all' : (r.over ?? []).join('/') || '(nothing)'}: ${demanded.join(', ') || 'nothing demanded'}`;
  } else
    floor = [
      e.min_tier ?? 'any tier',
      e.weighted_required ? 'weighted' : 'unweighted ok',
      e.control_required ? 'control' : '',
      e.recipe_required ? 'recipe' : '',
      e.freshness === 'delivered-revision' ? 'fresh' : '',
      e.independence !== 'none' ? e.independence : '',
      e.methods.length ? `methods ${e.methods.join('/')}` : '',
    ]
      .filter(Boolean)
      .join(', ');
  return r.unevaluated.length ? `${floor}; not evaluated: ${r.unevaluated.join(', ')}` : floor;
}

/** `satisfied (WT-1)`; an indeterminate requirement says why (its first reason is the unevaluated floor or the undecidable stack). */
function coverageText(cov: RequirementCoverage | undefined): string {
  if (!cov) return '-';
  if (cov.status === 'indeterminate') return `indeterminate: ${cov.failures[0]!.reason}`;
  return `${cov.status}${cov.basis.length ? ` (${cov.basis.join(', ')})` : ''}`;
}

/**
 * The decision's disposition as recorded. One the computed coverage cannot decide (indeterminate)
 * is never shown as a bare `satisfied`: the view says nothing confirmed it.
 */
function dispositionText(disposition: Table | undefined, cov: RequirementCoverage | undefined): string {
  const status = str(disposition, 'status');
  if (status === undefined) return '-';
  if (cov?.status === 'indeterminate' && status.startsWith('satisfied'))
    return `${status} as recorded, not confirmed: coverage is indeterminate`;
  return status;
}

export function renderRecord(input: RenderInput): string[] {
  const { spec, pkg, decision } = input;
  const lines: string[] = [];
  const doc = table(spec.data, 'document');
  const subject = table(pkg.data, 'subject');
  lines.push(
    clip(
      `# Acceptance: ${str(doc, 'id') ?? '(no id)'} v${String(doc?.version ?? '?')} -> ${str(subject, 'name') ?? '(unnamed subject)'}`,
    ),
  );
  lines.push('', ...verdictBlock(input.verdict ?? []));
  // NOTEs about how the subject was checked (a tree checkout lacking the commit) come before the stack table.
  const notes = [...pkg.check.findings.list, ...(decision?.check.findings.list ?? [])].filter(
    (f) => f.level === 'NOTE' && f.message.startsWith('tree checkout'),
  );
  for (const n of new Set(notes.map((n) => n.message))) lines.push(`NOTE ${n}`);
  if (notes.length) lines.push('');
  const stack = decision?.check.stack ?? pkg.check.stack;
  if (stack) lines.push(...relationTable(stack), '');

  const dispositions = new Map(tables(decision?.data, 'disposition').map((d) => [str(d, 'requirement') ?? '', d]));
  const conditions = tables(decision?.data, 'condition');
  const claimsOf = (req: string) => pkg.check.format.claims.filter((c) => c.clause === req);
  const coverage = new Map(pkg.check.coverage.requirements.map((r) => [r.requirement, r]));
  lines.push(
    '| Requirement | Mandatory | Floor | Claims | Coverage | Disposition | Conditions |',
    '|---|---|---|---|---|---|---|',
  );
  for (const r of spec.check.requirements) {
    const claims =
      claimsOf(r.id)
        .map((c) => `${c.id} (${c.status}${c.tier ? ` ${c.tier}` : ''}${c.weightGranted ? ' weighted' : ''})`)
        .join(', ') || '-';
    const cov = coverage.get(r.id);
    const conds = conditions
      .filter((c) => str(c, 'requirement') === r.id)
      .map((c) => `${str(c, 'id') ?? '?'} due ${String(c.due ?? '?')}`)
      .join(', ');
    lines.push(
      `| ${cell(r.id)} | ${r.mandatory ? 'yes' : 'no'} | ${cell(floorText(r))} | ${cell(claims)} | ${cell(coverageText(cov))} | ${cell(dispositionText(dispositions.get(r.id), cov))} | ${cell(conds || '-')} |`,
    );
  }
  lines.push('', ...summaryLines('coverage', pkg.check.coverage));
  if (decision) {
    const d = table(decision.data, 'document');
    lines.push(
      `decision: ${str(d, 'verdict') ?? '(no verdict)'} by ${issuerText(table(d, 'issuer'))} at ${str(d, 'issued_at') ?? '?'} (${decision.check.status})`,
    );
    if (decision.check.effect)
      lines.push(
        `${decision.check.effect.eligible ? 'EFFECT-ELIGIBLE' : 'EFFECT-INELIGIBLE'}: ${decision.check.effect.reason}`,
      );
  } else lines.push('decision: none presented');
  if (stack) lines.push('', ...stackLines(stack, decision));
  return lines;
}

function issuerText(issuer: Table | undefined): string {
  return issuer ? `${str(issuer, 'name') ?? '?'} / ${str(issuer, 'role') ?? '?'}` : '(no issuer)';
}

/** All five relations in order; Boundary (elements declared outside the checked boundary) and Gaps list element names. */
function relationTable(stack: StackReport): string[] {
  return [
    '| Relation | Inventories / completeness | Boundary | Gaps |',
    '|---|---|---|---|',
    ...stack.relations.map(
      (r) => `| ${r.relation} | ${r.inventories} | ${r.boundary.join(', ')} | ${r.gaps.join(', ')} |`,
    ),
  ];
}

/**
 * The closing lines. "stack accepted" is printed only for a passing stack under a valid decision;
 * anything else says plainly that the stack is not accepted, and why.
 */
function stackLines(stack: StackReport, decision: RenderInput['decision']): string[] {
  const covered = stack.relations.filter((r) => r.inventories !== 'uncovered');
  const uncovered = stack.relations.filter((r) => r.inventories === 'uncovered').map((r) => r.relation);
  const over = [...new Set(covered.map((r) => r.inventories.split(' / ')[0]))].join(', ');
  const issuedAt = str(table(decision?.data, 'document'), 'issued_at');
  const lines: string[] = [];
  if (stack.status === 'pass' && decision?.check.status === 'valid')
    lines.push(`stack accepted over ${over} for ${covered.map((r) => r.relation).join(', ')} at ${issuedAt ?? '?'}`);
  else {
    const why = stack.elements
      .filter((e) => e.status !== 'accepted' && e.status !== 'boundary')
      .map((e) => `${e.name}: ${e.reason ?? e.status}`);
    lines.push(
      `stack NOT accepted (${stack.status}${decision ? `, decision ${decision.check.status}` : ', no decision'})${why.length ? `: ${why.join('; ')}` : ''}`,
    );
  }
  lines.push(`not covered (trusted as the base, not checked): ${uncovered.join(', ') || '(none)'}`);
  // Declared outside the checked boundary: listed, never counted as accepted.
  const outside = stack.elements.filter((e) => e.status === 'boundary');
  if (outside.length)
    lines.push(
      `outside the checked boundary (listed, not accepted): ${outside.map((e) => `${e.name} (${e.reason ?? 'no reason'})`).join(', ')}`,
    );
  const issuers: string[] = [];
  for (const e of stack.elements)
    if (e.issuer && !issuers.includes(`${e.issuer.name} / ${e.issuer.role}`))
      issuers.push(`${e.issuer.name} / ${e.issuer.role}`);
  if (issuers.length) lines.push(`accepted by ${issuers.join(', ')} under their own specifications`);
  for (const e of stack.elements) if (e.binding) lines.push(`${e.name}: declared binding: ${e.binding}`);
  lines.push(
    'The label combines no assurance levels across the stack. Each element was accepted at its own floor; no failure bound for the whole stack follows.',
  );
  return lines;
}
