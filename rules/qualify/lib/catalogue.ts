/**
 * A package's mutation catalogue for one profile (`vkit.mutation-catalogue/1`): a known-good
 * reference candidate and named, reviewable edits of it, each breaking one behaviour the package's
 * contracts should notice. vkit's own live with the qualify kind, in
 * `rules/qualify/catalogues/<package id>/<profile>/catalogue.json`, outside the package: the package's
 * digest is pinned by configs, and the catalogue's own digest enters the qualification's identity instead.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';
import { ID_PATTERN, fieldPath } from '../../../src/config/schema.js';
import { InvalidInputError, type Issue } from '../../../src/errors.js';
import { jsonId, sha256Id } from '../../../src/hash/index.js';

const CATALOGUE_FILE = 'catalogue.json';

const text = v.pipe(v.string(), v.minLength(1, 'Expected a non-empty string'));

const MutantSchema = v.strictObject({
  /** Lowercase letters, digits and `-`; never `reference` (the control's component id). */
  id: v.pipe(
    v.string(),
    v.regex(/^[a-z0-9][a-z0-9-]*$/, 'Expected a mutant id of lowercase letters, digits and `-`'),
    v.check((s) => s !== 'reference', '`reference` is the reference candidate’s id'),
  ),
  /** The binding whose behaviour the edit breaks (or `representation`). */
  binding: text,
  /** The behaviour it breaks, in words: what a package that lets it through cannot tell. */
  breaks: text,
  /** Replacements in the reference, applied in order; each `find` occurs exactly once. */
  edits: v.pipe(v.array(v.strictObject({ find: text, replace: v.string() })), v.minLength(1)),
  /** What its author measured (documentation only: the runner classifies for itself). */
  expect: v.optional(v.picklist(['detected', 'survivor', 'inconclusive'])),
  /** A human's judgement that this survivor is equivalent to the reference, and why. */
  equivalent: v.optional(v.strictObject({ reason: text })),
});

const CatalogueSchema = v.strictObject({
  schema: v.literal('vkit.mutation-catalogue/1', 'Expected schema `vkit.mutation-catalogue/1`'),
  package: v.strictObject({ id: text, version: text }),
  profile: text,
  /** The contract the candidates are checked against. @default the package's only contract */
  contract: v.optional(text),
  /** The known-good candidate, relative to the catalogue's directory. */
  reference: v.pipe(
    text,
    v.check((s) => !s.startsWith('/') && !s.split('/').includes('..'), 'Expected a path inside the catalogue'),
  ),
  bindings: v.record(v.string(), text),
  /** The candidates' representation (their own state type), as a component declares it; none for the owned state. */
  representation: v.optional(text),
  parameters: v.optional(v.record(v.string(), v.unknown()), {}),
  mutants: v.pipe(
    v.array(MutantSchema),
    v.minLength(1, 'Expected at least one mutant'),
    v.check((ms) => new Set(ms.map((m) => m.id)).size === ms.length, 'Expected unique mutant ids'),
  ),
});

export type Mutant = v.InferOutput<typeof MutantSchema>;

export interface Catalogue extends v.InferOutput<typeof CatalogueSchema> {
  /** Where it was read from. */
  dir: string;
  /** The reference candidate's bytes, as text. */
  referenceText: string;
  /**
   * The catalogue's identity: every file of its directory (the catalogue, the reference, the adequacy
   * proofs, whatever else it holds), by path and raw-byte digest: an edited adequacy proof moves it.
   */
  sha256: string;
}

/** The directory holding vkit's own catalogues (`rules/qualify/catalogues/`), found up from this module as the package root is. */
function cataloguesRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'rules', 'qualify', 'catalogues');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) return join(dirname(dirname(fileURLToPath(import.meta.url))), 'catalogues');
    dir = up;
  }
}

/** Where vkit's own catalogue for an installed package and profile lives: `catalogues/<package>/<profile>/`. */
export function installedCatalogueDir(packageId: string, profile: string): string {
  return join(cataloguesRoot(), packageId, profile);
}

/** Reads and checks a catalogue; every problem is exit 2 naming the file and field. */
export function readCatalogue(dir: string): Catalogue {
  const file = join(dir, CATALOGUE_FILE);
  const fail: (issues: Issue[]) => never = (issues) => {
    throw new InvalidInputError('ERR_CATALOGUE_INVALID', issues, 'See docs/formal.md, "Package qualification".');
  };
  if (!existsSync(file)) fail([{ file, path: '', message: 'No mutation catalogue here' }]);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    fail([{ file, path: '', message: `Cannot read the catalogue: ${(error as Error).message}` }]);
  }
  const parsed = v.safeParse(CatalogueSchema, data);
  if (!parsed.success) fail(parsed.issues.map((i) => ({ file, path: fieldPath(i.path), message: i.message })));
  const c = parsed.output;
  let referenceText: string;
  try {
    referenceText = readFileSync(join(dir, c.reference), 'utf8');
  } catch (error) {
    return fail([{ file, path: 'reference', message: `Cannot read the reference: ${(error as Error).message}` }]);
  }
  const catalogue: Catalogue = {
    ...c,
    dir,
    referenceText,
    sha256: catalogueDigest(catalogueFiles(dir)),
  };
  // Every edit must apply: a catalogue whose mutant cannot be made is invalid, never a silent skip.
  const issues: Issue[] = [];
  catalogue.mutants.forEach((m, i) => {
    const made = mutate(referenceText, m);
    if (typeof made !== 'string')
      issues.push({ file, path: `mutants[${i}].edits[${made.edit}].find`, message: made.problem });
    else if (made === referenceText)
      issues.push({ file, path: `mutants[${i}].edits`, message: 'The edits leave the reference unchanged' });
  });
  if (issues.length) fail(issues);
  if (!ID_PATTERN.test(catalogue.package.id)) fail([{ file, path: 'package.id', message: 'Expected a package id' }]);
  return catalogue;
}

/** The mutant's source: the reference with its edits applied, or which edit cannot apply and why. */
export function mutate(reference: string, mutant: Pick<Mutant, 'edits'>): string | { edit: number; problem: string } {
  let out = reference;
  for (const [i, e] of mutant.edits.entries()) {
    const first = out.indexOf(e.find);
    if (first < 0)
      return { edit: i, problem: 'The text to replace does not occur in the reference (after earlier edits)' };
    if (out.indexOf(e.find, first + 1) >= 0)
      return { edit: i, problem: 'The text to replace occurs more than once: make it unique' };
    out = out.slice(0, first) + e.replace + out.slice(first + e.find.length);
  }
  return out;
}

/** The digest of a mutant's edits (what the report names it by, beside its id). */
export function editDigest(mutant: Pick<Mutant, 'edits'>): string {
  return jsonId(mutant.edits);
}

/** Every regular file under a catalogue directory with the sha256 of its raw bytes, sorted by path. */
function catalogueFiles(dir: string, rel = ''): { path: string; sha256: string }[] {
  const out: { path: string; sha256: string }[] = [];
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const path = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...catalogueFiles(dir, path));
    else if (e.isFile()) out.push({ path, sha256: sha256Id(readFileSync(join(dir, path))) });
    // A link or special file is no part of a catalogue's identity, and never read as one.
    else
      throw new InvalidInputError('ERR_CATALOGUE_INVALID', [
        { file: join(dir, path), path: '', message: 'A catalogue holds regular files only' },
      ]);
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The digest of a catalogue's file list (its identity). */
export function catalogueDigest(files: readonly { path: string; sha256: string }[]): string {
  return jsonId(files.map((f) => [f.path, f.sha256]));
}
