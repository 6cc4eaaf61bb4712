/**
 * What every part of the format validator shares: the validation context (`Ctx`) and the small
 * readers that report into its findings (digest fields, paths kept inside --root, missing files).
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { parseM11, type M11Domain } from '../../../src/hash/index.js';
import type { FileReads } from './file-reads.js';
import { unknownKeys as reportUnknownKeys } from './keys.js';
import type { FormatOptions, FormatResult } from './model.js';
import { insideRoot } from './paths.js';
import type { ResolvedProfile } from './profiles.js';
import type { Findings } from './report.js';
import type { Doc, FieldPath, Table } from './toml.js';

export const COMMIT = /^[0-9a-f]{40}$/;
const BARE = /^sha-512:[0-9a-fA-F]{128}$/;

export interface Ctx {
  doc: Doc;
  opts: FormatOptions;
  f: Findings;
  /** The package file's directory: base of records, `[spec] path` and cited packages. */
  pkgDir: string;
  /** Base of evidence `inputs`; undefined when `[subject] root` is invalid (already reported). */
  subjectRoot?: string;
  profile?: ResolvedProfile;
  /** Manifest digests of the packages being validated (citation cycles). */
  stack: readonly string[];
  /** The command's reads: each file resolved, read and hashed once, whatever cites it. */
  files: FileReads;
  /** `base` NUL `rel` -> the path inside --root it names (null: absolute or outside), worked out once. */
  placed: Map<string, string | null>;
  /**
   * Validates a cited package one citation deeper, with this validation's options and reads. Handed
   * in by format.ts, so the reference check recurses without an import cycle.
   */
  validateCited: (doc: Doc, stack: readonly string[]) => Promise<FormatResult>;
}

export function unknownKeys(ctx: Ctx, t: Table, path: FieldPath, allowed: readonly string[], where: string): void {
  reportUnknownKeys(ctx.f, t, path, allowed, where);
}

export const nonempty = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;
export const show = (v: unknown) => JSON.stringify(v) ?? String(v);

/** A typed M11 digest field; reports what is wrong and returns the digest when it is usable. */
export function digestField(
  ctx: Ctx,
  value: unknown,
  domain: M11Domain,
  label: string,
  path: FieldPath,
): string | undefined {
  if (typeof value === 'string' && BARE.test(value)) {
    ctx.f.error(`${label} uses the retired bare form 'sha-512:<hex>'; write '${domain}:sha-512:<128 hex>'`, path);
    return undefined;
  }
  const parsed = parseM11(value);
  if (!parsed) {
    ctx.f.error(`${label} must be '${domain}:sha-512:<128 lowercase hex>', got ${show(value)}`, path);
    return undefined;
  }
  if (parsed.domain !== domain) {
    ctx.f.error(`${label} is in domain '${parsed.domain}', expected '${domain}'`, path);
    return undefined;
  }
  return value as string;
}

/**
 * `rel` resolved against `base`, or undefined (reported) when it is not a nonempty relative path
 * or leaves --root. Symbolic links are followed for files that exist: a link out of the root
 * escapes it just the same.
 */
export async function pathInRoot(
  ctx: Ctx,
  base: string,
  rel: unknown,
  label: string,
  path: FieldPath,
): Promise<string | undefined> {
  if (!nonempty(rel)) {
    ctx.f.error(`${label} must be a nonempty relative path`, path);
    return undefined;
  }
  const root = ctx.opts.root;
  const key = `${base}\u0000${rel}`;
  let inside = ctx.placed.get(key);
  if (inside === undefined) {
    const abs = isAbsolute(rel) ? undefined : resolve(base, rel);
    inside = (abs === undefined ? undefined : insideRoot(root, relative(root, abs) || '.')) ?? null;
    ctx.placed.set(key, inside);
  }
  if (!inside) {
    ctx.f.error(
      `${label} '${rel}' is ${isAbsolute(rel) ? 'absolute' : 'outside --root'}: paths in a document stay inside the root`,
      path,
    );
    return undefined;
  }
  // Missing (either undefined): the caller decides what a missing file means.
  const [real, realRoot] = await Promise.all([ctx.files.realpath(inside), ctx.files.realpath(root)]);
  if (real !== undefined && realRoot !== undefined) {
    const back = relative(realRoot, real);
    if (back === '..' || back.startsWith(`..${sep}`) || isAbsolute(back)) {
      ctx.f.error(`${label} '${rel}' leads outside --root through a symbolic link`, path);
      return undefined;
    }
  }
  return inside;
}

/** A missing record or input: a warning, an error under --strict (never INDETERMINATE). */
export function missing(ctx: Ctx, message: string, path: FieldPath): void {
  if (ctx.opts.strict) ctx.f.error(message, path);
  else ctx.f.warn(message, path);
}
