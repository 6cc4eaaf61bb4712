/**
 * What every model-checking profile writes the same way: an undecided property, a container step's
 * log, a retained artifact.
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ContainerResult } from '../../../src/checkers/container.js';
import type { Diagnostic } from '../../../src/checkers/results.js';
import type { ModelProperty } from '../schema.js';
import type { ModelOutcome, ModelScope, PropertyResult } from './types.js';

/** A property nothing decided, and why (with the scope searched, when a search ran). */
export function unknownProperty(p: ModelProperty, reason: string, scope: ModelScope | null = null): PropertyResult {
  return { name: p.name, kind: p.kind, required: p.required, claim: 'unknown', reason, scope, witness: null };
}

/** A retained step log: the command, how it ended, both streams. */
export function stepLog(command: string | readonly string[], r: ContainerResult): string {
  const status = `exit ${r.exitCode}${r.timedOut ? ' (timed out)' : ''}${r.cancelled ? ' (cancelled)' : ''}${r.startError ? ` (not started: ${r.startError})` : ''}`;
  return `$ ${typeof command === 'string' ? command : command.join(' ')}\n${status}\n-- stdout\n${r.stdout}\n-- stderr\n${r.stderr}\n`;
}

/** One error per property of a kind the profile does not check, naming the kinds it does. */
export function unsupportedKinds(
  properties: readonly ModelProperty[],
  kinds: readonly string[],
  profile: string,
): Diagnostic[] {
  return properties
    .filter((p) => !kinds.includes(p.kind))
    .map((p) => ({
      severity: 'error',
      message: `property \`${p.name}\` is of kind ${p.kind}, which the ${profile} profile does not check (${kinds.join(', ')})`,
    }));
}

/** The outcome when the checker cannot run: every property unknown, naming what is missing (or `fallback`). */
export function checkerUnavailable(
  outcome: ModelOutcome,
  properties: readonly ModelProperty[],
  missing: readonly string[],
  fallback: string,
): ModelOutcome {
  const why = `checker unavailable: ${(missing.length ? missing : [fallback]).join('; ')}`;
  outcome.properties = properties.map((p) => unknownProperty(p, why));
  return outcome;
}

/**
 * Keeps text (written here) or a file (a scratch copy a container wrote, skipped unless `present`)
 * as the artifact `as` under the output directory `out`, listed once in the outcome.
 */
export function keepArtifact(
  out: string,
  outcome: Pick<ModelOutcome, 'artifacts'>,
  as: string,
  from: { file: string } | { text: string },
  present: (file: string) => boolean = existsSync,
): void {
  const to = join(out, as);
  mkdirSync(dirname(to), { recursive: true });
  if ('text' in from) writeFileSync(to, from.text);
  else {
    if (!present(from.file)) return;
    copyFileSync(from.file, to);
  }
  if (!outcome.artifacts.includes(as)) outcome.artifacts.push(as);
}
