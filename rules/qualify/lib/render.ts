/** The human form of a qualification report (pure). */
import type { Qualification } from './report.js';
import type { PackageComparison } from './snapshot.js';

export function renderQualification(q: Qualification): string {
  const lines = [
    `qualification of ${q.package.id} ${q.package.version} (${q.profile}): ${q.status}: ${q.reason}`,
    `  reference     ${q.reference.status}${q.reference.run ? `  ${q.reference.run}` : ''}${q.reference.status === 'PASS' ? '' : `  ${q.reference.reason}`}`,
  ];
  const width = Math.max(...q.mutants.map((m) => m.id.length));
  for (const m of q.mutants) {
    const what =
      m.class === 'detected'
        ? `caught by ${m.caught_by}`
        : m.class === 'survivor'
          ? m.equivalent
            ? `marked equivalent: ${m.equivalent.reason}`
            : `passed: ${m.breaks}`
          : m.reason;
    lines.push(`  ${m.class.padEnd(12)}  ${m.id.padEnd(width)}  ${what}${m.run ? `  (${m.run})` : ''}`);
  }
  for (const a of q.adequacy)
    lines.push(`  adequacy ${a.status.padEnd(7)} ${a.id}: ${a.status === 'holds' ? a.establishes : a.reason}`);
  const t = q.totals;
  lines.push(
    `${t.mutants} mutants: ${t.detected} detected, ${t.survivors} survivors, ${t.equivalent} marked equivalent, ${t.inconclusive} inconclusive (${(q.ms / 1000).toFixed(1)} s)`,
    ...(q.comparison ? [comparisonLine(q.comparison)] : []),
    'not established:',
    ...q.not_established.map((n) => `  - ${n}`),
  );
  return `${lines.join('\n')}\n`;
}

function comparisonLine(c: PackageComparison): string {
  const counts = (x: { added: string[]; removed: string[]; changed?: string[] }) =>
    `+${x.added.length} -${x.removed.length}${x.changed ? ` ~${x.changed.length}` : ''}`;
  const named = (x: { changed: string[] }) => (x.changed.length ? ` (${x.changed.join(', ')})` : '');
  return [
    `compared with ${c.previous.id} ${c.previous.version} (${c.previous.sha256}):`,
    `files ${counts(c.assets)}${named(c.assets)};`,
    `obligations ${counts(c.obligations)}${named(c.obligations)};`,
    `accepted axioms ${counts(c.trust.accepted_axioms)};`,
    `checker ${c.trust.checker.changed ? 'changed' : 'same'}; pins ${counts(c.trust.pins)};`,
    `semantic equivalence ${c.semantic_equivalence}`,
  ].join(' ');
}
