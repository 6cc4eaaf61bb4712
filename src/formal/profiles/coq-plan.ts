/**
 * The pure side of the `coq-linux-x86_64-v1` profile: the package's obligation list, a component
 * checked into a plan, and the generated driver that binds the candidate's functor to LEDGER_API.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ProfileContext } from '../types.js';

export const BINDINGS = ['new', 'reserve', 'release', 'reserve_batch', 'apply_command', 'run_commands'] as const;
/**
 * A represented component (`representation` set: its own state type) binds these too, checked against
 * LEDGER_REPR_API (Repr.v): its state type, `view` (state -> ledger) and `of_ledger` (ledger -> state),
 * whose proof `<of_ledger>_spec` is the conversion lemma LEDGER_REPR_API.view_of_ledger.
 */
const REPR_BINDINGS = ['state', 'view', 'of_ledger'] as const;
export const CONVERSION_CONTRACT = 'view_of_ledger';
/** Parameter bounds: N and M are unary naturals in the kernel, so they stay small. */
const MAX_PARAMETER = 1024;
const IDENT = /^[A-Za-z_][A-Za-z0-9_']*$/;

/* ------------------------------------------------------------------ the package's obligation list */

export interface CoqObligationSpec {
  bindings: Record<string, { contract: string; client: string[] }>;
  package_claims: { claim: string; theorems: string[] }[];
  not_established: { claim: string; note: string }[];
}

export function readObligationSpec(pkgDir: string): CoqObligationSpec {
  return JSON.parse(readFileSync(join(pkgDir, 'coq', 'obligations.json'), 'utf8')) as CoqObligationSpec;
}

/* ------------------------------------------------------------------ the component, checked (pure) */

export interface CoqComponentPlan {
  /** Captured-source path of the candidate entry, e.g. `src/allocation.v`. */
  entry: string;
  /** The candidate library's module name (the entry's file stem). */
  library: string;
  /** The candidate's functor (the common module path of every binding). */
  functor: string;
  /** Binding -> the field name inside the functor. */
  symbols: Record<string, string>;
  maxRecords: number;
  commandCount: number;
  /** The component's representation name, when its state is its own type (checked against LEDGER_REPR_API). */
  representation?: string;
}

/** The names a plan binds: the six, preceded by the representation's for a represented component. */
export function boundNames(plan: { representation?: string }): string[] {
  return plan.representation === undefined ? [...BINDINGS] : [...REPR_BINDINGS, ...BINDINGS];
}

/** The module type a plan's bound module is checked against. */
export function moduleType(plan: { representation?: string }): string {
  return plan.representation === undefined ? 'LEDGER_API' : 'LEDGER_REPR_API';
}

/** The contract field proved for a binding (`<name>_spec` in the candidate), if it has one. */
export function contractOf(spec: CoqObligationSpec, binding: string): string | undefined {
  return binding === 'of_ledger' ? CONVERSION_CONTRACT : spec.bindings[binding]?.contract;
}

/**
 * Reads a component's entry, bindings and parameters into a plan, or the problems that make it
 * uncheckable. Everything here is pasted into generated Coq, so only plain identifiers pass.
 */
export function planComponent(
  component: ProfileContext['component'],
): { plan: CoqComponentPlan } | { problems: string[] } {
  const problems: string[] = [];
  const entry = component.source.entry;
  const segments = entry.split('/');
  const stem = basename(entry, '.v');
  if (!entry.endsWith('.v') || segments.some((s) => !/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(s)) || !IDENT.test(stem)) {
    problems.push(`source.entry must be a relative path to a .v file whose name is a Coq identifier, got \`${entry}\``);
  }
  const represented = component.representation !== undefined;
  const symbols: Record<string, string> = {};
  const functors = new Set<string>();
  for (const b of boundNames(component)) {
    const path = component.bindings[b];
    if (path === undefined) {
      problems.push(
        represented && (REPR_BINDINGS as readonly string[]).includes(b)
          ? `binding \`${b}\` is missing: a component with representation \`${component.representation}\` binds ${REPR_BINDINGS.join(', ')} (its state type, state -> ledger, ledger -> state with \`<of_ledger>_spec\` proving LEDGER_REPR_API.${CONVERSION_CONTRACT}) besides the six`
          : `binding \`${b}\` is missing`,
      );
      continue;
    }
    const parts = path.split('.');
    if (parts.length < 2 || !parts.every((p) => IDENT.test(p))) {
      problems.push(`binding \`${b}\` must be Module.name (Coq identifiers), got \`${path}\``);
      continue;
    }
    functors.add(parts.slice(0, -1).join('.'));
    symbols[b] = parts[parts.length - 1]!;
  }
  if (functors.size > 1)
    problems.push(
      `all bindings must name fields of one functor over LEDGER_PARAMS, got ${[...functors].sort().join(', ')}`,
    );
  const n = component.parameters.max_records;
  const m = component.parameters.command_count;
  if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > MAX_PARAMETER)
    problems.push(`parameters.max_records must be an integer from 1 to ${MAX_PARAMETER}, got ${JSON.stringify(n)}`);
  if (!Number.isInteger(m) || (m as number) < 0 || (m as number) > MAX_PARAMETER)
    problems.push(`parameters.command_count must be an integer from 0 to ${MAX_PARAMETER}, got ${JSON.stringify(m)}`);
  if (problems.length) return { problems };
  return {
    plan: {
      entry,
      library: stem,
      functor: [...functors][0]!,
      symbols,
      maxRecords: n as number,
      commandCount: m as number,
      ...(represented ? { representation: component.representation } : {}),
    },
  };
}

/** Names of the `Print Assumptions` outputs (`<id>.out` under assumptions/). */
export function assumptionId(kind: 'client' | 'package', theorem: string): string {
  return `${kind}.${theorem}`;
}

/**
 * The driver: binds the parameters, applies the candidate's functor, checks the bound module
 * against LEDGER_API, applies the expected client, prints assumptions and extracts. `lines` maps a
 * one-based driver line to the binding it binds, so a typing error there names its obligation.
 */
export function renderDriver(
  plan: CoqComponentPlan,
  spec: CoqObligationSpec,
): { text: string; lines: Record<number, string> } {
  const out: string[] = [];
  const lines: Record<number, string> = {};
  const add = (s: string, binding?: string) => {
    out.push(s);
    if (binding) lines[out.length] = binding;
  };
  add('(* Generated by vkit (coq-linux-x86_64-v1). *)');
  add(
    `From VkitLedger Require Import Ledger Facts Contracts Client Model Transfer${plan.representation === undefined ? '' : ' Repr'}.`,
  );
  add(`From VkitCandidate Require ${plan.library}.`);
  add('Module Params <: LEDGER_PARAMS.');
  add(`  Definition max_records := ${plan.maxRecords}.`);
  add(`  Definition command_count := ${plan.commandCount}.`);
  add('  Lemma max_records_pos : 0 < max_records.');
  add('  Proof. unfold max_records. apply PeanoNat.Nat.lt_0_succ. Qed.');
  add('End Params.');
  add(`Module Candidate := ${plan.library}.${plan.functor} Params.`);
  if (plan.representation === undefined) {
    add('Module Bound <: LEDGER_API Params.');
    for (const b of BINDINGS) {
      const sym = plan.symbols[b]!;
      add(`  Definition ${b} := Candidate.${sym}.`, b);
      add(`  Definition ${spec.bindings[b]!.contract} := Candidate.${sym}_spec.`, b);
    }
    add('End Bound.');
  } else {
    // The candidate's own state: checked against LEDGER_REPR_API, then adapted to LEDGER_API.
    add(`(* representation: ${plan.representation.replace(/[^A-Za-z0-9_.-]/g, '_')} *)`);
    add('Module Represented <: LEDGER_REPR_API Params.');
    for (const b of boundNames(plan)) {
      const sym = plan.symbols[b]!;
      add(`  Definition ${b} := Candidate.${sym}.`, b);
      const contract = contractOf(spec, b);
      if (contract) add(`  Definition ${contract} := Candidate.${sym}_spec.`, b);
    }
    add('End Represented.');
    add('Module Bound := ReprAdapter Params Represented.');
  }
  add('Module Client := ExpectedClient Params Bound.');
  add('Module ModelCheck := ModelImpl Params.');
  for (const b of BINDINGS) {
    for (const t of spec.bindings[b]!.client)
      add(`Redirect "/work/assumptions/${assumptionId('client', t)}" Print Assumptions Client.${t}.`, b);
  }
  for (const c of spec.package_claims) {
    for (const t of c.theorems)
      add(`Redirect "/work/assumptions/${assumptionId('package', t)}" Print Assumptions ${t}.`);
  }
  add('Require Extraction.');
  add('Require Import ExtrOcamlBasic ExtrOcamlNatInt.');
  add('Extraction "/work/build/ledger.ml" Params Bound.');
  return { text: `${out.join('\n')}\n`, lines };
}
