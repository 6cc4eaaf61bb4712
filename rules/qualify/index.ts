/**
 * `qualify` (section `formal.qualifications`, gate item `qualify:<id>`): a package qualification the
 * config requires. PASS only when the reference candidate passes, every mutant of the catalogue is
 * detected (or marked equivalent with a reason) and every adequacy check holds; a survivor or a
 * refuted adequacy check is FAIL; an inconclusive mutant is BLOCKED. Its key binds the package, the
 * catalogue and (through `vkit.lock.json`, as for a component) the accepted checker. The kind also
 * adds `vkit formal qualify` (`verbs.ts`, its handler in `cli.ts`) and the MCP tool `formal_qualify`
 * (`tools.ts`), both running `service/qualify.ts` through the operations the core lends a kind
 * (`src/kit/host.ts`); its entry schema is `schema.ts`, its library `lib/` (catalogues, candidates,
 * adequacy, the report) and vkit's own catalogues are in `catalogues/<package>/<profile>/`.
 */
import { defineKind } from '../../src/config/kind.js';
import { lockBoundNode } from '../../src/formal/lock.js';
import { bindVerb } from '../../src/kit/verb.js';
import { QualificationEntrySchema } from './schema.js';
import * as verbs from './verbs.js';

export const qualifyKind = defineKind({
  name: 'qualify',
  section: 'formal.qualifications',
  entry: QualificationEntrySchema,
  rules: { qualify: async () => (await import('./rule.js')).qualifyRule },
  label: (q) => `qualify:${q.id}`,
  required: (q) => q.required,
  verbs: [bindVerb(verbs.qualify, async () => (await import('./cli.js')).qualify)],
  tools: async () => (await import('./tools.js')).qualifyTools,
  schemas: async () => ({
    'vkit.qualification-1.schema.json': (await import('./lib/report.js')).QualificationSchema,
  }),
  lock: async (qualifications, ctx) => (await import('./lock.js')).qualificationLock(qualifications, ctx),
  // A catalogue in the repository is read from the capture; vkit's own is bound by its digest in the key.
  expand: (q) => [lockBoundNode('qualify', 'qualify', q, q.inputs ?? (q.catalogue ? [`${q.catalogue}/**`] : []))],
});
