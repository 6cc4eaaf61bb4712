/**
 * `formal` (section `formal.components`, gate item `formal:<id>`): a formal component checked by a
 * real verifier in a restricted worker. Its rule kind stays `verify`: the rule kind is part of every
 * action key and receipt already stored, and renaming it would orphan that evidence.
 */
import { defineKind } from '../../src/config/kind.js';
import type { ResolvedComponent } from '../../src/config/types.js';
import { ComponentSchema } from './schema.js';

export const formalKind = defineKind<ResolvedComponent>({
  name: 'formal',
  section: 'formal.components',
  entry: ComponentSchema as never,
  rules: { verify: async () => (await import('./rule.js')).verifyRule },
  label: (c) => `formal:${c.id}`,
  required: (c) => c.required,
  // The raw capture of the declared inputs plus the lock, whose bytes bind the accepted digests.
  expand: (c) => [
    {
      label: `formal:${c.id}`,
      kind: 'verify',
      id: c.id,
      attrs: c as unknown as Record<string, unknown>,
      inputs: [...c.inputs, 'vkit.lock.json'],
      hash: 'raw',
      required: c.required,
      after: [],
    },
  ],
});
