/**
 * What a package comparison looks at (`--compare-package`): a package's snapshot (each file's digest,
 * each Coq obligation's statement digest, its trust identities) and the difference between two. A
 * statement digest is over the statement's text with comments removed and whitespace collapsed, so a
 * reformatted proof or comment leaves it alone and any change to what is stated moves it. Whether two
 * packages mean the same is never decided here: `semantic_equivalence` is always `unknown`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { blankCommentsAndStrings } from '../../../src/checkers/coq.js';
import { sha256Id } from '../../../src/hash/index.js';
import type { MathPackage } from '../../../src/formal/types.js';

export const PackageSnapshotSchema = v.object({
  package: v.object({ id: v.string(), version: v.string(), sha256: v.string() }),
  /** Every file of the package with the sha256 of its raw bytes, sorted by path. */
  files: v.array(v.object({ path: v.string(), sha256: v.string() })),
  /** Every obligation the Coq profile checks (contracts, client theorems, package claims) with its statement's digest. */
  obligations: v.array(v.object({ id: v.string(), statement_sha256: v.nullable(v.string()) })),
  trust: v.object({
    /** Profile -> axioms a profile may report without blocking. */
    accepted_axioms: v.record(v.string(), v.array(v.string())),
    /** The checker a qualification ran with (null for a bare package directory). */
    checker_sha256: v.nullable(v.string()),
    /** Digests of the package's pin files (`verus/pins.json`), by path. */
    pins: v.record(v.string(), v.string()),
  }),
});
export type PackageSnapshot = v.InferOutput<typeof PackageSnapshotSchema>;

const Changes = v.object({ added: v.array(v.string()), removed: v.array(v.string()), changed: v.array(v.string()) });

export const PackageComparisonSchema = v.object({
  previous: v.object({ id: v.string(), version: v.string(), sha256: v.string() }),
  /** Package files by path: added, removed, bytes changed. */
  assets: Changes,
  /** Obligations by id: added, removed, statement changed. */
  obligations: Changes,
  trust: v.object({
    accepted_axioms: v.object({ added: v.array(v.string()), removed: v.array(v.string()) }),
    checker: v.object({ previous: v.nullable(v.string()), current: v.nullable(v.string()), changed: v.boolean() }),
    pins: Changes,
  }),
  /** Never decided: a comparison of texts says nothing about what the packages mean. */
  semantic_equivalence: v.literal('unknown'),
});
export type PackageComparison = v.InferOutput<typeof PackageComparisonSchema>;

/** The obligations' ids as the Coq profile names them, with the files their statements live in. */
interface ObligationList {
  bindings: Record<string, { contract: string; client: string[] }>;
  package_claims: { theorems: string[] }[];
}

export function snapshotPackage(pkg: MathPackage, checker: string | null): PackageSnapshot {
  const files = pkg.files.map((path) => ({ path, sha256: sha256Id(readFileSync(join(pkg.dir, path))) }));
  const text = (path: string) => (pkg.files.includes(path) ? readFileSync(join(pkg.dir, path), 'utf8') : '');
  const obligations: PackageSnapshot['obligations'] = [];
  if (pkg.files.includes('coq/obligations.json')) {
    const list = JSON.parse(text('coq/obligations.json')) as ObligationList;
    // Every Coq source of the package: a statement's digest covers the declarations it names.
    const sources = pkg.files.filter((f) => f.endsWith('.v')).map(text);
    const digest = (name: string) => statementDigest(sources, name);
    for (const [binding, b] of Object.entries(list.bindings)) {
      obligations.push({ id: `contract:${binding}`, statement_sha256: digest(b.contract) });
      for (const t of b.client) obligations.push({ id: `client:${t}`, statement_sha256: digest(t) });
    }
    // A represented candidate is held to LEDGER_REPR_API's statements (coq/Repr.v), which share
    // the contracts' names: digest them with Repr.v's declarations found first.
    if (pkg.files.includes('coq/Repr.v')) {
      const repr = [text('coq/Repr.v'), ...sources];
      for (const name of [...Object.values(list.bindings).map((b) => b.contract), 'view_of_ledger'])
        obligations.push({ id: `repr:${name}`, statement_sha256: statementDigest(repr, name) });
    }
    for (const claim of list.package_claims)
      for (const t of claim.theorems)
        obligations.push({ id: `package:${t}`, statement_sha256: digest(t.split('.').at(-1)!) });
  }
  const pins = Object.fromEntries(files.filter((f) => f.path.endsWith('pins.json')).map((f) => [f.path, f.sha256]));
  return {
    package: { id: pkg.id, version: pkg.version, sha256: pkg.sha256 },
    files,
    obligations: obligations.sort((a, b) => (a.id < b.id ? -1 : 1)),
    trust: { accepted_axioms: pkg.acceptedAxioms, checker_sha256: checker, pins },
  };
}

const DECLARATION =
  /\b(?:Axiom|Parameter|Theorem|Lemma|Fact|Remark|Corollary|Proposition|Definition|Fixpoint|Inductive|Record)\s+([A-Za-z_][A-Za-z0-9_']*)/g;

/** Every declaration of the sources, by name: its text up to the `.` that ends it, comments removed, whitespace collapsed. */
function declarations(sources: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const source of sources) {
    const code = blankCommentsAndStrings(source);
    for (const m of code.matchAll(DECLARATION)) {
      // A declaration ends at a `.` followed by whitespace or the end (not a qualified name's dot).
      const end = /\.(?=\s|$)/.exec(code.slice(m.index));
      const text = code
        .slice(m.index, end ? m.index + end.index : undefined)
        .replace(/\s+/g, ' ')
        .trim();
      if (!out.has(m[1]!)) out.set(m[1]!, text);
    }
  }
  return out;
}

/**
 * The digest of what a declaration states: its own text (comments and layout aside) together with
 * the texts of every declaration of the package it names, transitively, so a contract whose
 * postcondition is a definition moves when that definition does. Null when no source declares it.
 */
export function statementDigest(sources: string | readonly string[], name: string): string | null {
  const decls = declarations(typeof sources === 'string' ? [sources] : sources);
  if (!decls.has(name)) return null;
  const seen = new Set<string>();
  const visit = (n: string) => {
    if (seen.has(n) || !decls.has(n)) return;
    seen.add(n);
    for (const [id] of decls.get(n)!.matchAll(/[A-Za-z_][A-Za-z0-9_']*/g)) visit(id);
  };
  visit(name);
  return sha256Id(JSON.stringify([decls.get(name), [...seen].sort().map((n) => decls.get(n))]));
}

/** The difference between two snapshots (pure). */
export function comparePackages(previous: PackageSnapshot, current: PackageSnapshot): PackageComparison {
  const diff = (a: Map<string, unknown>, b: Map<string, unknown>) => ({
    added: [...b.keys()].filter((k) => !a.has(k)).sort(),
    removed: [...a.keys()].filter((k) => !b.has(k)).sort(),
    changed: [...b.keys()].filter((k) => a.has(k) && a.get(k) !== b.get(k)).sort(),
  });
  const byPath = (s: PackageSnapshot) => new Map(s.files.map((f) => [f.path, f.sha256]));
  const byId = (s: PackageSnapshot) => new Map(s.obligations.map((o) => [o.id, o.statement_sha256]));
  const axioms = (s: PackageSnapshot) =>
    new Set(Object.entries(s.trust.accepted_axioms).flatMap(([profile, as]) => as.map((a) => `${profile}: ${a}`)));
  const [before, after] = [axioms(previous), axioms(current)];
  return {
    previous: previous.package,
    assets: diff(byPath(previous), byPath(current)),
    obligations: diff(byId(previous), byId(current)),
    trust: {
      accepted_axioms: {
        added: [...after].filter((a) => !before.has(a)).sort(),
        removed: [...before].filter((a) => !after.has(a)).sort(),
      },
      checker: {
        previous: previous.trust.checker_sha256,
        current: current.trust.checker_sha256,
        changed: previous.trust.checker_sha256 !== current.trust.checker_sha256,
      },
      pins: diff(new Map(Object.entries(previous.trust.pins)), new Map(Object.entries(current.trust.pins))),
    },
    semantic_equivalence: 'unknown',
  };
}
