/**
 * The keys a specification and a decision may carry, table by table, and the fields that may hold
 * a TOML date or time. Every other key is an ERROR (with the nearest known key when it looks like a
 * typo): a key vkit does not read might carry a promise vkit does not check. The floor tables of a
 * requirement (`[requirement.evidence]`, `[requirement.demands]`) are the exception the
 * specification check makes: a key there that is not a typo of a known one is a floor this vkit
 * cannot evaluate, which makes the specification indeterminate instead (specification.ts).
 */
import { unknownKeyMessage } from './keys.js';
import type { Findings } from './report.js';
import { isTable, pathText, type FieldPath, type Table } from './toml.js';

/**
 * A table's keys: `true` for a value, a nested shape for a table (or an array of tables) whose own
 * keys are checked, `'open'` for a table of free names (`fields = { bounds = "bounded" }`), and
 * `'floor'` for a floor table whose unknown keys are judged by the specification check.
 */
type Shape = { readonly [key: string]: true | 'open' | 'floor' | Shape };

/** `contact` is 0.3.2's descriptive party field: it carries no promise, so a migrated document keeps it. */
const PARTY: Shape = { name: true, role: true, contact: true };

const SPECIFICATION: Shape = {
  document: { protocol: true, kind: true, id: true, version: true, issued_at: true, issued_by: true, status: true },
  parties: { consumer: PARTY, producer: PARTY },
  acceptance: {
    rule: true,
    authority: true,
    consumer_verification: true,
    profiles_required: true,
    stale_after: true,
    assurance_class: true,
  },
  ratification: { by: true, at: true },
  requirement: {
    id: true,
    statement: true,
    mandatory: true,
    waivable: true,
    domain: true,
    clause_source: true,
    kind: true,
    evidence: 'floor',
    over: true,
    demands: 'floor',
    chain: {
      relations: true,
      depth: true,
      level: true,
      completeness: true,
      binds: true,
      acceptors: true,
      allow_conditions: true,
      unaccepted: true,
      max_elements: true,
    },
  },
};

const DECISION: Shape = {
  document: {
    protocol: true,
    kind: true,
    id: true,
    issued_at: true,
    issuer: PARTY,
    verdict: true,
    provisional: true,
  },
  binds: {
    specification: { id: true, hash: true },
    package: { hash: true },
    subject: { commit: true, digest: true },
  },
  verification: { mode: true, run: { claim: true, command: true, observed: true, result: true, at: true } },
  condition: { id: true, requirement: true, statement: true, due: true, owner: true },
  disposition: {
    requirement: true,
    status: true,
    basis: true,
    conditions: true,
    waiver: { reason: true, code: true, authority: true },
  },
  validity: { stale_after: true },
};

/** Fields (paths without array indices) that take a TOML date or time as well as its text. */
export const SPECIFICATION_DATE_FIELDS = ['document.issued_at', 'ratification.at'];
export const DECISION_DATE_FIELDS = [
  'document.issued_at',
  'verification.run.at',
  'condition.due',
  'validity.stale_after',
];

export function specificationKeys(data: Table, f: Findings): void {
  walk(data, [], SPECIFICATION, f);
}

export function decisionKeys(data: Table, f: Findings): void {
  walk(data, [], DECISION, f);
}

/** Reports the unknown keys of `t` and of every table below it that `shape` describes. */
function walk(t: Table, path: FieldPath, shape: Shape, f: Findings): void {
  const allowed = Object.keys(shape);
  const where = path.length === 0 ? 'the document' : path.length === 1 ? `[${path[0]}]` : pathText(path);
  for (const [key, value] of Object.entries(t)) {
    const inner = shape[key];
    if (inner === undefined) {
      f.error(unknownKeyMessage(where, key, allowed), [...path, key]);
      continue;
    }
    if (typeof inner !== 'object') continue;
    if (isTable(value)) walk(value, [...path, key], inner, f);
    else if (Array.isArray(value))
      value.forEach((entry, i) => {
        if (isTable(entry)) walk(entry, [...path, key, i], inner, f);
      });
  }
}
