/**
 * A model-checking item the config declares (section `formal.models`, gate item `model:<id>`): a
 * finite model (Promela, TLA+) or a proof project (Lean), the profile that checks it, and the named
 * properties it must satisfy. The schema lives with the model-checking library, which `vkit policy
 * accept` and the `model` kind (rules/model/) both read.
 */
import * as v from 'valibot';
import { globList, id, nonEmptyString, relativePath } from '../../src/config/schema.js';
import { jsonId } from '../../src/hash/index.js';

/** A macro name for the model's preprocessor (`-DNAME`): an identifier, optionally `=value` of safe characters. */
const define = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_.-]+)?$/, 'Expected a macro NAME or NAME=VALUE (letters, digits, `_`)'),
);

const PROPERTY_KINDS = ['assert', 'ltl', 'never', 'deadlock', 'invariant', 'theorem'] as const;

const PropertySchema = v.strictObject({
  /**
   * The property's name: an `ltl` block or `never` claim of the model, an invariant of the TLC
   * configuration, a Lean theorem; for `assert` and `deadlock` a name of the author's choosing.
   */
  name: v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_.'-]*$/, 'Expected a property name (an identifier)')),
  /**
   * `assert`: no assertion of the model fails; `ltl` / `never`: the named claim holds; `deadlock`:
   * no invalid end state; `invariant`: a TLC invariant; `theorem`: a Lean theorem.
   */
  kind: v.picklist(PROPERTY_KINDS, `Expected one of ${PROPERTY_KINDS.join(', ')}`),
  /** Macros for this property only, after the item's (e.g. a quiet world for deadlock freedom). */
  defines: v.optional(v.array(define), []),
  /** Only required properties decide the item. @default true */
  required: v.optional(v.boolean(), true),
});

const BoundsSchema = v.strictObject({
  /** The search's depth bound (pan `-m`); hitting it leaves a property unknown. @default 100000 */
  depth: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100_000_000)), 100_000),
  /** Memory the search may use, in MiB (pan `-DMEMLIM`); reaching it leaves a property unknown. @default 1024 */
  memory_mb: v.optional(v.pipe(v.number(), v.integer(), v.minValue(16), v.maxValue(65_536)), 1024),
  /** Seconds each property's search may take before it is unknown. @default 300 */
  timeout_s: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(86_400)), 300),
  /** Seconds the search for a shorter witness may take (0: none); an exhausted budget never makes a witness minimal. @default 20 */
  minimize_s: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(3_600)), 20),
});

export const ModelEntrySchema = v.strictObject({
  id,
  profile: nonEmptyString,
  /** The model's main file, relative to the root (`.pml`, `.tla`; a Lean project's root directory). */
  model: relativePath,
  /** The checker's configuration file, relative to the root (TLC's `.cfg`). */
  config: v.optional(relativePath),
  /** Macros for every property (`-DNAME`). */
  defines: v.optional(v.array(define), []),
  properties: v.pipe(
    v.array(PropertySchema),
    v.minLength(1, 'Expected at least one property'),
    v.check((ps) => new Set(ps.map((p) => p.name)).size === ps.length, 'Expected unique property names'),
  ),
  bounds: v.optional(BoundsSchema, {}),
  /** Globs of every file the model reads (its includes too): the capture, and so the key. */
  inputs: globList,
  /** Only required items change the gate. @default true */
  required: v.optional(v.boolean(), true),
});

export type ResolvedModel = v.InferOutput<typeof ModelEntrySchema>;
export type ModelProperty = ResolvedModel['properties'][number];

/** The lock entry's key: `model:<id>` (a component id holds no `:`, so the two never meet). */
export const modelLockKey = (m: Pick<ResolvedModel, 'id'>) => `model:${m.id}`;

/** What acceptance binds besides the checker: the whole entry (profile, properties, bounds, macros). */
export function modelPolicyDigest(m: ResolvedModel): string {
  return jsonId({ model: m });
}
