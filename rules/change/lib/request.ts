/**
 * A change request (`vkit.change-request/1`), read in two steps: its envelope (schema, candidate,
 * basis digest, an optional `target` that must equal the host's) before the basis is known, then its
 * claim, witness and samples typed against the basis's signature. Every problem is an issue at its
 * JSON path (exit 2).
 */
import type { Issue } from '../../../src/errors.js';
import type { Assignment, Value } from './evaluate.js';
import { childPath, indexAt } from './paths.js';
import { checkPredicate, type Term } from './predicate.js';
import { type Basis, DIGEST } from './records.js';
import { describe, objectAt, stringAt, valueAt } from './shape.js';

export interface RequestEnvelope {
  candidate: string;
  basis: string;
  /** As the request wrote it, when it did: the host's target must equal it. */
  target?: string;
  raw: Record<string, unknown>;
}

/** One observation: a full input assignment and the output. */
export interface Observation {
  inputs: Assignment;
  result: Value;
}

export interface TypedRequest {
  claim: Term;
  witness: Observation;
  samples: Observation[];
}

const KEYS = ['schema', 'candidate', 'basis', 'claim', 'delegation'] as const;

export function parseEnvelope(value: unknown): { envelope?: RequestEnvelope; issues: Issue[] } {
  const issues: Issue[] = [];
  const o = objectAt(value, '', KEYS, ['samples', 'target'], issues);
  if (!o) return { issues };
  if (o.schema !== 'vkit.change-request/1')
    issues.push({ path: 'schema', message: `Expected "vkit.change-request/1", got ${describe(o.schema)}` });
  const candidate = stringAt(
    o.candidate,
    'candidate',
    issues,
    /^[^\s-][^\s]*$/,
    'a commit or ref (no spaces, not starting with `-`)',
  );
  const basis = stringAt(
    o.basis,
    'basis',
    issues,
    DIGEST,
    '`sha256:<64 lowercase hex>` (the digest of a registered basis file)',
  );
  const target = o.target === undefined ? undefined : stringAt(o.target, 'target', issues);
  if (issues.length || !candidate || !basis) return { issues };
  return { envelope: { candidate, basis, target, raw: o }, issues: [] };
}

function observationAt(value: unknown, path: string, basis: Basis, issues: Issue[]): Observation | undefined {
  const o = objectAt(value, path, ['inputs', 'result'], [], issues);
  if (!o) return undefined;
  const before = issues.length;
  const inputsPath = childPath(path, 'inputs');
  const names = basis.function.params.map((p) => p.name);
  const given = objectAt(o.inputs, inputsPath, names, [], issues);
  const inputs = new Map<string, Value>();
  for (const p of given ? basis.function.params : []) {
    const v = valueAt(given![p.name], p.type, childPath(inputsPath, p.name), issues);
    if (v !== undefined) inputs.set(p.name, v);
  }
  const result = valueAt(o.result, basis.function.result, childPath(path, 'result'), issues);
  return issues.length === before && result !== undefined ? { inputs, result } : undefined;
}

/** The claim, witness and samples of a request whose basis is known. */
export function typeRequest(envelope: RequestEnvelope, basis: Basis): { request?: TypedRequest; issues: Issue[] } {
  const issues: Issue[] = [];
  const claim = checkPredicate(envelope.raw.claim, 'claim', basis.scope, 'claim');
  issues.push(...claim.issues);
  const d = objectAt(envelope.raw.delegation, 'delegation', ['witness'], [], issues);
  const witness = d && observationAt(d.witness, 'delegation.witness', basis, issues);
  const samples: Observation[] = [];
  const raw = envelope.raw.samples;
  if (raw !== undefined && !Array.isArray(raw))
    issues.push({ path: 'samples', message: 'Expected an array of { inputs, result }' });
  for (const [i, s] of (Array.isArray(raw) ? raw : []).entries()) {
    const o = observationAt(s, indexAt('samples', i), basis, issues);
    if (o) samples.push(o);
  }
  if (issues.length || !claim.term || !witness) return { issues };
  return { request: { claim: claim.term, witness, samples }, issues: [] };
}
