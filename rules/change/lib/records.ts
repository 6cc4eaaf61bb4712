/**
 * The records a target commit keeps under `verification/change-claims/`: a function's delegation
 * basis (`*.delegation-basis.v1.json`: signature, assumptions, intent, baseline) and the registry of
 * accepted bases (`accepted-claim-bases.v1.json`). Parsed strictly: any problem is an issue naming
 * the file and JSON path (exit 2), never a guess.
 */
import type { Issue } from '../../../src/errors.js';
import { parseJsonText } from '../../../src/text/json-text.js';
import { childPath, indexAt } from './paths.js';
import { checkPredicate, type Term, type ValueType, VALUE_TYPES } from './predicate.js';
import { objectAt, stringAt } from './shape.js';

export const CLAIMS_DIR = 'verification/change-claims';
export const REGISTRY_FILE = 'accepted-claim-bases.v1.json';
export const DIGEST = /^sha256:[0-9a-f]{64}$/;
const IDENT = /^[a-z_][a-z0-9_]*$/;

interface FunctionSignature {
  crate: string;
  manifest: string;
  path: string;
  name: string;
  params: { name: string; type: ValueType }[];
  result: ValueType;
}

export interface Basis {
  function: FunctionSignature;
  assumptions: Term;
  intent: Term;
  baseline: Term;
  /** Parameters only (what assumptions see). */
  inputScope: ReadonlyMap<string, ValueType>;
  /** Parameters and `result` (what claims, intents and baselines see). */
  scope: ReadonlyMap<string, ValueType>;
}

export interface RegistryEntry {
  digest: string;
  file: string;
  function: string;
  since: string;
}

/** JSON text -> value, or the syntax issue (with line) in `file`. */
export function jsonOf(text: string, file: string): { value?: unknown; issues: Issue[] } {
  const parsed = parseJsonText(text);
  const dup = parsed.source.duplicates()[0];
  if (parsed.issues.length) return { issues: parsed.issues.map((i) => ({ ...i, file })) };
  if (dup)
    return {
      issues: [{ file, path: dup.path, line: dup.line, message: `Duplicate key \`${dup.key}\`: write each key once` }],
    };
  return { value: parsed.value, issues: [] };
}

export function parseRegistry(value: unknown, file: string): { entries?: RegistryEntry[]; issues: Issue[] } {
  const issues: Issue[] = [];
  const o = objectAt(value, '', ['schema', 'bases'], [], issues);
  if (o) {
    if (o.schema !== 'vkit.accepted-claim-bases/1')
      issues.push({
        path: 'schema',
        message: `Expected "vkit.accepted-claim-bases/1", got ${JSON.stringify(o.schema)}`,
      });
    if (!Array.isArray(o.bases)) issues.push({ path: 'bases', message: 'Expected an array of accepted bases' });
  }
  const entries: RegistryEntry[] = [];
  for (const [i, b] of (Array.isArray(o?.bases) ? o.bases : []).entries()) {
    const p = indexAt('bases', i);
    const e = objectAt(b, p, ['digest', 'file', 'function', 'since'], [], issues);
    if (!e) continue;
    const digest = stringAt(e.digest, childPath(p, 'digest'), issues, DIGEST, '`sha256:<64 lowercase hex>`');
    const f = stringAt(
      e.file,
      childPath(p, 'file'),
      issues,
      /^[^/\\]+\.json$/,
      'a file name in the change-claims directory',
    );
    const fn = stringAt(e.function, childPath(p, 'function'), issues);
    const since = stringAt(e.since, childPath(p, 'since'), issues);
    if (digest && f && fn && since) entries.push({ digest, file: f, function: fn, since });
  }
  return issues.length ? { issues: issues.map((i) => ({ ...i, file })) } : { entries, issues: [] };
}

function signatureOf(value: unknown, issues: Issue[]): FunctionSignature | undefined {
  const f = objectAt(value, 'function', ['crate', 'manifest', 'path', 'name', 'params', 'result'], [], issues);
  if (!f) return undefined;
  const typeAt = (t: unknown, path: string) =>
    (VALUE_TYPES as readonly unknown[]).includes(t)
      ? (t as ValueType)
      : void issues.push({ path, message: `Expected a type (${VALUE_TYPES.join(' ')}), got ${JSON.stringify(t)}` });
  const params: FunctionSignature['params'] = [];
  if (!Array.isArray(f.params))
    issues.push({ path: 'function.params', message: 'Expected an array of { name, type }' });
  for (const [i, p] of (Array.isArray(f.params) ? f.params : []).entries()) {
    const at = indexAt('function.params', i);
    const o = objectAt(p, at, ['name', 'type'], [], issues);
    if (!o) continue;
    const n = stringAt(o.name, childPath(at, 'name'), issues, IDENT, 'a Rust identifier (lowercase)');
    const t = typeAt(o.type, childPath(at, 'type'));
    if (n === 'result')
      issues.push({ path: childPath(at, 'name'), message: '`result` names the output; rename the parameter' });
    else if (n && params.some((q) => q.name === n))
      issues.push({ path: childPath(at, 'name'), message: `Parameter \`${n}\` is declared twice` });
    else if (n && t) params.push({ name: n, type: t });
  }
  const sig = {
    crate: stringAt(f.crate, 'function.crate', issues),
    manifest: stringAt(f.manifest, 'function.manifest', issues),
    path: stringAt(f.path, 'function.path', issues),
    name: stringAt(f.name, 'function.name', issues, IDENT, 'a Rust identifier (lowercase)'),
    params,
    result: typeAt(f.result, 'function.result'),
  };
  return issues.length ? undefined : (sig as FunctionSignature);
}

export function parseBasis(value: unknown, file: string): { basis?: Basis; issues: Issue[] } {
  const issues: Issue[] = [];
  const o = objectAt(value, '', ['schema', 'function', 'assumptions', 'intent', 'baseline', 'method'], [], issues);
  if (!o) return { issues: issues.map((i) => ({ ...i, file })) };
  if (o.schema !== 'vkit.delegation-basis/1')
    issues.push({ path: 'schema', message: `Expected "vkit.delegation-basis/1", got ${JSON.stringify(o.schema)}` });
  if (o.method !== 'restricted_captured_rust_kani_model')
    issues.push({
      path: 'method',
      message: `Expected "restricted_captured_rust_kani_model" (the one admitted method), got ${JSON.stringify(o.method)}`,
    });
  const fn = signatureOf(o.function, issues);
  if (!fn) return { issues: issues.map((i) => ({ ...i, file })) };
  const inputScope = new Map(fn.params.map((p) => [p.name, p.type] as const));
  const scope = new Map([...inputScope, ['result', fn.result] as const]);
  const a = checkPredicate(o.assumptions, 'assumptions', inputScope, 'assumptions');
  const i = checkPredicate(o.intent, 'intent', scope, 'intent');
  const b = checkPredicate(o.baseline, 'baseline', scope, 'baseline');
  issues.push(...a.issues, ...i.issues, ...b.issues);
  if (issues.length || !a.term || !i.term || !b.term) return { issues: issues.map((x) => ({ ...x, file })) };
  return {
    basis: { function: fn, assumptions: a.term, intent: i.term, baseline: b.term, inputScope, scope },
    issues: [],
  };
}
