/**
 * Pure validation: `validateManifest(data, file)` -> `{ value, issues }`. Schema problems come first,
 * then cross-references (unique ids, `after` targets, each listed once, rule kinds). Reading files
 * is `load.ts`'s job.
 */
import * as v from 'valibot';
import type { Issue } from '../errors.js';
import { entriesOf, kinds, ruleKindsOf, type KindRegistry } from './kind.js';
import { fieldPath, manifestSchema } from './schema.js';
import type { Manifest } from './types.js';

export function validateManifest(
  data: unknown,
  file?: string,
  registry: KindRegistry = kinds(),
): { value?: Manifest; issues: Issue[] } {
  const parsed = v.safeParse(manifestSchema(registry), data);
  if (!parsed.success) {
    return { issues: parsed.issues.map((i) => ({ file, path: fieldPath(i.path), message: describe(i) })) };
  }
  const { $schema: _ignored, sandbox, ...value } = parsed.output;
  const manifest = value as unknown as Manifest;
  for (const kind of registry.kinds) for (const entry of entriesOf(manifest, kind)) kind.resolve?.(entry, { sandbox });
  const issues = crossCheck(manifest, registry).map((i) => ({ ...i, file }));
  return issues.length ? { issues } : { value: manifest, issues };
}

function describe(issue: v.BaseIssue<unknown>): string {
  if (issue.kind === 'schema' && issue.type === 'strict_object' && issue.expected === 'never') {
    return `Unknown key ${issue.received}; remove it or check its spelling`;
  }
  // Union failures carry the sub-issue that explains the most; show the first.
  const sub = issue.issues?.find((s) => s.path && s.path.length > (issue.path?.length ?? 0));
  return sub ? `${issue.message} (${sub.message})` : issue.message;
}

function crossCheck(m: Manifest, registry: KindRegistry): Omit<Issue, 'file'>[] {
  const issues: Omit<Issue, 'file'>[] = [];
  const seen = new Map<string, string>();
  for (const kind of registry.kinds)
    entriesOf(m, kind).forEach((entry, i) => {
      const label = kind.label(entry);
      const path = `${kind.section}[${i}].id`;
      const prev = seen.get(label);
      if (prev) issues.push({ path, message: `Duplicate id: \`${label}\` is already declared at ${prev}` });
      else seen.set(label, path);
    });

  const builtin = ruleKindsOf(registry);
  const ruleKinds = new Set<string>();
  m.rules.forEach((r, i) => {
    if (builtin.has(r.kind))
      issues.push({
        path: `rules[${i}].kind`,
        message: `\`${r.kind}\` is a built-in kind; give your rule another kind`,
      });
    else if (ruleKinds.has(r.kind))
      issues.push({ path: `rules[${i}].kind`, message: `Duplicate rule kind \`${r.kind}\`` });
    ruleKinds.add(r.kind);
  });
  for (const kind of registry.kinds) issues.push(...(kind.validate?.(entriesOf(m, kind), m, ruleKinds) ?? []));
  return issues;
}
