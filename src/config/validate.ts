/**
 * Pure validation: `validateManifest(data, file)` -> `{ value, issues }`. Schema problems come first,
 * then cross-references (unique ids, `after` targets, each listed once, rule kinds). Reading files
 * is `load.ts`'s job.
 */
import * as v from 'valibot';
import { compileGlob } from '../capture/glob.js';
import type { Issue } from '../errors.js';
import { fieldPath, ManifestSchema } from './schema.js';
import type { Manifest } from './types.js';

const BUILTIN_KINDS = new Set(['capture', 'check', 'verify', 'compare', 'accept', 'self-verify']);

export function validateManifest(data: unknown, file?: string): { value?: Manifest; issues: Issue[] } {
  const parsed = v.safeParse(ManifestSchema, data);
  if (!parsed.success) {
    return { issues: parsed.issues.map((i) => ({ file, path: fieldPath(i.path), message: describe(i) })) };
  }
  const { $schema: _ignored, sandbox, ...value } = parsed.output;
  const manifest = value as Manifest;
  // The config-wide sandbox is a default: each check records its own (it is part of its identity).
  for (const check of manifest.checks) check.sandbox ??= sandbox ?? 'isolated';
  const issues = crossCheck(manifest).map((i) => ({ ...i, file }));
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

function crossCheck(m: Manifest): Omit<Issue, 'file'>[] {
  const issues: Omit<Issue, 'file'>[] = [];
  const seen = new Map<string, string>();
  const claim = (label: string, path: string) => {
    const prev = seen.get(label);
    if (prev) issues.push({ path, message: `Duplicate id: \`${label}\` is already declared at ${prev}` });
    else seen.set(label, path);
  };
  m.checks.forEach((c, i) => claim(`check:${c.id}`, `checks[${i}].id`));
  m.actions.forEach((a, i) => claim(`${a.rule}:${a.id}`, `actions[${i}].id`));
  m.formal.components.forEach((c, i) => claim(`formal:${c.id}`, `formal.components[${i}].id`));
  m.compare.forEach((c, i) => claim(`compare:${c.id}`, `compare[${i}].id`));
  // Labels an acceptance record expands into (`accept:<id>/<crate>`, `accept:<id>/run:<claim>`) hold a `/`, which no id can.
  m.acceptance.forEach((a, i) => claim(`accept:${a.id}`, `acceptance[${i}].id`));

  // A hermetic check writes only inside its outputs' directories; the root itself cannot be one.
  m.checks.forEach((c, i) =>
    c.outputs.forEach((o, j) => {
      const g = compileGlob(o);
      if (c.sandbox === 'hermetic' && !g.negated && !(g.literal ? g.prefix.includes('/') : g.prefix !== '')) {
        issues.push({
          path: `checks[${i}].outputs[${j}]`,
          message: `A hermetic check writes its outputs in directories it declares; \`${o}\` is at the root. Put the outputs in a directory (\`out/${o}\`)`,
        });
      }
    }),
  );

  const checkIds = new Set(m.checks.map((c) => c.id));
  m.checks.forEach((c, i) =>
    c.after.forEach((dep, j) => {
      const path = `checks[${i}].after[${j}]`;
      const first = c.after.indexOf(dep);
      if (first < j) issues.push(repeatedDependency(path, dep, first));
      else if (dep === c.id) issues.push({ path, message: `Check \`${c.id}\` cannot run after itself` });
      else if (!checkIds.has(dep))
        issues.push({ path, message: `Expected the id of a declared check, got \`${dep}\`` });
    }),
  );

  const ruleKinds = new Set<string>();
  m.rules.forEach((r, i) => {
    if (BUILTIN_KINDS.has(r.kind))
      issues.push({
        path: `rules[${i}].kind`,
        message: `\`${r.kind}\` is a built-in kind; give your rule another kind`,
      });
    else if (ruleKinds.has(r.kind))
      issues.push({ path: `rules[${i}].kind`, message: `Duplicate rule kind \`${r.kind}\`` });
    ruleKinds.add(r.kind);
  });
  const actionLabels = new Set(m.actions.map((a) => `${a.rule}:${a.id}`));
  m.actions.forEach((a, i) => {
    if (!ruleKinds.has(a.rule))
      issues.push({
        path: `actions[${i}].rule`,
        message: `Expected the kind of a rule registered in \`rules\`, got \`${a.rule}\``,
      });
    a.after.forEach((dep, j) => {
      const path = `actions[${i}].after[${j}]`;
      const first = a.after.indexOf(dep);
      if (first < j) issues.push(repeatedDependency(path, dep, first));
      else if (!checkIds.has(dep) && !actionLabels.has(`${a.rule}:${dep}`))
        issues.push({ path, message: `Expected the id of a declared check or action, got \`${dep}\`` });
    });
  });
  return issues;
}

/**
 * An `after` entry naming a dependency already listed. Refused rather than read as a set: a repeated
 * id is most often a typo for the one that was meant, and merging the two would hide that mistake.
 */
function repeatedDependency(path: string, dep: string, first: number): Omit<Issue, 'file'> {
  return { path, message: `Duplicate: \`${dep}\` is already listed at after[${first}]; list each dependency once` };
}
