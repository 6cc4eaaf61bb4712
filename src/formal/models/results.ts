/** What every model-checking profile writes the same way: an undecided property, a container step's log. */
import type { ContainerResult } from '../../checkers/container.js';
import type { ModelProperty } from './entry-schema.js';
import type { ModelScope, PropertyResult } from './types.js';

/** A property nothing decided, and why (with the scope searched, when a search ran). */
export function unknownProperty(p: ModelProperty, reason: string, scope: ModelScope | null = null): PropertyResult {
  return { name: p.name, kind: p.kind, required: p.required, claim: 'unknown', reason, scope, witness: null };
}

/** A retained step log: the command, how it ended, both streams. */
export function stepLog(command: string | readonly string[], r: ContainerResult): string {
  const status = `exit ${r.exitCode}${r.timedOut ? ' (timed out)' : ''}${r.cancelled ? ' (cancelled)' : ''}${r.startError ? ` (not started: ${r.startError})` : ''}`;
  return `$ ${typeof command === 'string' ? command : command.join(' ')}\n${status}\n-- stdout\n${r.stdout}\n-- stderr\n${r.stderr}\n`;
}
