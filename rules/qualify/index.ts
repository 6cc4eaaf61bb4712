/**
 * `qualify` (section `formal.qualifications`, gate item `qualify:<id>`): a package qualification the
 * config requires. PASS only when the reference candidate passes, every mutant of the catalogue is
 * detected (or marked equivalent with a reason) and every adequacy check holds; a survivor or a
 * refuted adequacy check is FAIL; an inconclusive mutant is BLOCKED. Its key binds the package, the
 * catalogue and (through `vkit.lock.json`, as for a component) the accepted checker. The entry schema
 * lives with the qualification library (`src/formal/qualify/entry-schema.ts`), which `vkit policy
 * accept` reads too.
 */
import { defineKind } from '../../src/config/kind.js';
import { lockBoundNode } from '../../src/formal/lock.js';
import { QualificationEntrySchema } from '../../src/formal/qualify/entry-schema.js';

export const qualifyKind = defineKind({
  name: 'qualify',
  section: 'formal.qualifications',
  entry: QualificationEntrySchema,
  rules: { qualify: async () => (await import('./rule.js')).qualifyRule },
  label: (q) => `qualify:${q.id}`,
  required: (q) => q.required,
  schemas: async () => ({
    'vkit.qualification-1.schema.json': (await import('../../src/formal/qualify/report.js')).QualificationSchema,
  }),
  lock: async (qualifications, ctx) => (await import('./lock.js')).qualificationLock(qualifications, ctx),
  // A catalogue in the repository is read from the capture; vkit's own is bound by its digest in the key.
  expand: (q) => [lockBoundNode('qualify', 'qualify', q, q.inputs ?? (q.catalogue ? [`${q.catalogue}/**`] : []))],
});
