/**
 * The built-in rule registry. Workers re-plan jobs from this (plus the config's user rules). Rules
 * load on demand: a workspace of plain checks never loads the acceptance, model or formal code, which
 * is most of a no-op build's module loading.
 */
import type { Rule } from '../src/config/rule.js';

const LOADERS: Readonly<Record<string, () => Promise<Rule>>> = {
  capture: async () => (await import('./capture.js')).captureRule,
  check: async () => (await import('./check.js')).checkRule,
  compare: async () => (await import('./compare.js')).compareRule,
  accept: async () => (await import('./accept.js')).acceptRule,
  'self-verify': async () => (await import('./self-verify.js')).selfVerifyRule,
  verify: async () => (await import('./verify.js')).verifyRule,
};

export const BUILTIN_KINDS: readonly string[] = Object.keys(LOADERS);

/** The built-in rules of the given kinds (default: all); kinds that are not built in are skipped. */
export async function builtinRules(kinds: Iterable<string> = BUILTIN_KINDS): Promise<ReadonlyMap<string, Rule>> {
  const wanted = [...new Set(kinds)].filter((k) => Object.hasOwn(LOADERS, k));
  const rules = await Promise.all(wanted.map((k) => LOADERS[k]!()));
  for (const [i, r] of rules.entries())
    if (r.kind !== wanted[i]) throw new Error(`rule registered as \`${wanted[i]}\` has kind \`${r.kind}\``);
  return new Map(rules.map((r) => [r.kind, r]));
}
