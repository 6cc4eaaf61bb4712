/**
 * Pure validation: `validateManifest(data, file)` -> `{ value, issues }`. Schema problems come first,
 * then cross-references (unique ids, `after` targets, each listed once, rule kinds). Reading files
 * is `load.ts`'s job.
 */
import * as v from 'valibot';
import type { Issue } from '../errors.js';
import { entriesOf, kinds, ruleKindsOf, type KindRegistry } from './kind.js';
import { nearestName } from '../text/suggest.js';
import { fieldPath, manifestSchema } from './schema.js';
import type { Manifest } from './types.js';

export function validateManifest(
  data: unknown,
  file?: string,
  registry: KindRegistry = kinds(),
): { value?: Manifest; issues: Issue[] } {
  const schema = manifestSchema(registry);
  const parsed = v.safeParse(schema, data);
  if (!parsed.success) {
    return { issues: parsed.issues.map((i) => ({ file, path: fieldPath(i.path), message: describe(i, schema) })) };
  }
  const { $schema: _ignored, sandbox, ...value } = parsed.output;
  const manifest = value as unknown as Manifest;
  for (const kind of registry.kinds) for (const entry of entriesOf(manifest, kind)) kind.resolve?.(entry, { sandbox });
  const issues = crossCheck(manifest, registry).map((i) => ({ ...i, file }));
  return issues.length ? { issues } : { value: manifest, issues };
}

function describe(issue: v.BaseIssue<unknown>, schema: v.GenericSchema): string {
  if (issue.kind === 'schema' && issue.type === 'strict_object' && issue.expected === 'never') {
    const path = issue.path ?? [];
    const key = String(path.at(-1)?.key ?? '');
    const near = nearestName(key, keysAt(schema, path.slice(0, -1)));
    return near === undefined
      ? `Unknown key ${issue.received}; remove it or check its spelling`
      : `Unknown key ${issue.received}: did you mean \`${near}\`?`;
  }
  // Union failures carry the sub-issue that explains the most; show the first.
  const sub = issue.issues?.find((s) => s.path && s.path.length > (issue.path?.length ?? 0));
  return sub ? `${issue.message} (${sub.message})` : issue.message;
}

/** A schema's known parts, as valibot's schema objects carry them (options, entries, wrapped, item, pipe). */
interface SchemaParts {
  type: string;
  entries?: Record<string, SchemaParts>;
  item?: SchemaParts;
  wrapped?: SchemaParts;
  options?: SchemaParts[];
  pipe?: SchemaParts[];
}

/** The keys an object schema at `path` allows (every option's, under a union), for a did-you-mean. */
function keysAt(schema: v.GenericSchema, path: readonly v.IssuePathItem[]): string[] {
  let level: SchemaParts[] = [schema as unknown as SchemaParts];
  const unwrap = (s: SchemaParts): SchemaParts[] =>
    s.wrapped ? unwrap(s.wrapped) : s.pipe ? unwrap(s.pipe[0]!) : s.options ? s.options.flatMap(unwrap) : [s];
  for (const item of path)
    level = level.flatMap(unwrap).flatMap((s) => {
      if (s.entries && typeof item.key === 'string' && s.entries[item.key]) return [s.entries[item.key]!];
      if (s.item && typeof item.key === 'number') return [s.item];
      return [];
    });
  return level.flatMap(unwrap).flatMap((s) => Object.keys(s.entries ?? {}));
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
