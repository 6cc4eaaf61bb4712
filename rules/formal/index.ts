/**
 * `formal` (section `formal.components`, gate item `formal:<id>`): a formal component checked by a
 * real verifier in a restricted worker, by the rule `formal-check` (called `verify` before, which is
 * also a verb: evidence stored under the old name is not reused, so each component runs once again).
 */
import { defineKind } from '../../src/config/kind.js';
import type { FormalSource } from '../../src/formal/capture.js';
import { ComponentSchema } from '../../src/formal/component-schema.js';
import { lockBoundNode } from '../../src/formal/lock.js';

export const formalKind = defineKind({
  name: 'formal',
  section: 'formal.components',
  entry: ComponentSchema,
  rules: { 'formal-check': async () => (await import('./rule.js')).formalCheckRule },
  label: (c) => `formal:${c.id}`,
  lock: async (components, ctx) => (await import('./lock.js')).componentLock(components, ctx),
  required: (c) => c.required,
  // The raw capture of the declared inputs plus the lock, whose bytes bind the accepted digests.
  expand: (c) => [lockBoundNode('formal', 'formal-check', c, c.inputs)],
  // Judged twice, fail closed: by the candidate mode (a working-tree candidate is provisional) and by
  // what the receipt records (`subject.formal`): only a non-provisional capture of vkit's own copy of
  // a candidate commit counts. Any commit's copy is accepted, so with `--reuse` evidence for identical
  // captured bytes from an earlier candidate commit under the same target authority stands.
  protectedProblem(subject, provisional) {
    if (provisional) return 'provisional (working-tree) formal evidence is not accepted by the protected gate';
    const formal = subject?.formal as { source?: FormalSource; provisional?: unknown } | undefined;
    if (!formal) return 'the formal receipt does not record its capture source';
    if (formal.provisional !== false)
      return 'provisional (working-tree) formal evidence is not accepted by the protected gate (the receipt records a provisional capture)';
    const s = formal.source;
    if (s?.kind !== 'protected-copy' || s.of !== 'git-commit')
      return `formal evidence not captured from vkit's own copy of a candidate commit (recorded source: ${JSON.stringify(s ?? null)})`;
    return undefined;
  },
});
