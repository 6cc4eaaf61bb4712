/**
 * The change-certification formats as published JSON schemas (`schema/vkit.change-*.schema.json`):
 * the predicate language, the request, the basis records and the report. Tests validate every
 * request and report they make against these; the library's own checks (`lib/predicate.ts`,
 * `lib/request.ts`, `lib/records.ts`) add what JSON Schema cannot say (types of terms, scope, limits).
 */
import * as v from 'valibot';
import { INT_TYPES, OPS } from './lib/predicate.js';

const integerLiteral = v.union([
  v.pipe(v.number(), v.integer()),
  v.pipe(v.string(), v.regex(/^-?(?:0|[1-9][0-9]*)$/, 'Expected a decimal integer')),
]);

type TermInput =
  | { var: string }
  | { int: number | string }
  | { bool: boolean }
  | { op: (typeof OPS)[number]; args: TermInput[] };

/** A term of the predicate language (closed: no code, no strings, no quantifiers). */
export const TermSchema: v.GenericSchema<TermInput> = v.union([
  v.strictObject({ var: v.string() }),
  v.strictObject({ int: integerLiteral }),
  v.strictObject({ bool: v.boolean() }),
  v.strictObject({ op: v.picklist(OPS), args: v.array(v.lazy(() => TermSchema)) }),
]);

const digest = v.pipe(v.string(), v.regex(/^sha256:[0-9a-f]{64}$/, 'Expected `sha256:<64 hex>`'));
const name = v.pipe(v.string(), v.regex(/^[a-z_][a-z0-9_]*$/, 'Expected a Rust identifier'));
const valueLiteral = v.union([integerLiteral, v.boolean()]);
const observation = v.strictObject({ inputs: v.record(v.string(), valueLiteral), result: valueLiteral });

/** `vkit.change-request/1`: what an agent hands `vkit change certify` and MCP `change_certify`. */
export const ChangeRequestSchema = v.strictObject({
  schema: v.literal('vkit.change-request/1'),
  candidate: v.pipe(v.string(), v.minLength(1)),
  basis: digest,
  claim: TermSchema,
  delegation: v.strictObject({ witness: observation }),
  samples: v.optional(v.array(observation)),
  target: v.optional(v.string()),
});

const ValueType = v.picklist([...INT_TYPES, 'bool']);

/** `vkit.delegation-basis/1`: one function's accepted standing intent and baseline claim. */
export const DelegationBasisSchema = v.strictObject({
  schema: v.literal('vkit.delegation-basis/1'),
  function: v.strictObject({
    crate: v.string(),
    manifest: v.string(),
    path: v.string(),
    name,
    params: v.array(v.strictObject({ name, type: ValueType })),
    result: ValueType,
  }),
  assumptions: TermSchema,
  intent: TermSchema,
  baseline: TermSchema,
  method: v.literal('restricted_captured_rust_kani_model'),
});

/** `vkit.accepted-claim-bases/1`: the registry of accepted bases. */
export const AcceptedBasesSchema = v.strictObject({
  schema: v.literal('vkit.accepted-claim-bases/1'),
  bases: v.array(v.strictObject({ digest, file: v.string(), function: v.string(), since: v.string() })),
});

const counterexample = v.record(v.string(), valueLiteral);
const checker = v.object({
  name: v.string(),
  path: v.optional(v.string()),
  sha256: v.optional(v.string()),
  version: v.optional(v.string()),
});
const Obligation = v.object({
  id: v.string(),
  status: v.picklist(['holds', 'refuted', 'unknown']),
  counterexample: v.optional(counterexample),
  reason: v.optional(v.string()),
  checker: v.optional(checker),
});

/** `vkit.change-certification/1`: the report of `vkit change certify --json` and MCP `change_certify`. */
export const ChangeCertificationSchema = v.object({
  schema: v.literal('vkit.change-certification/1'),
  acceptance: v.picklist(['accepted', 'refuted', 'unknown']),
  target: v.string(),
  candidate: v.string(),
  basis: digest,
  obligations: v.array(Obligation),
  shadow: v.object({ obligations: v.array(Obligation) }),
  samples: v.optional(v.array(observation)),
  run: v.object({ started: v.string(), seconds: v.number(), solver: v.optional(checker) }),
});

export const PUBLISHED = {
  'vkit.change-request-1.schema.json': ChangeRequestSchema,
  'vkit.delegation-basis-1.schema.json': DelegationBasisSchema,
  'vkit.accepted-claim-bases-1.schema.json': AcceptedBasesSchema,
  'vkit.change-certification-1.schema.json': ChangeCertificationSchema,
};
