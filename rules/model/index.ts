/**
 * `model` (section `formal.models`, gate item `model:<id>`): a finite model (or proof project) whose
 * named properties a model-checking profile decides in a restricted worker. PASS only when every
 * required property is established; a property refuted by a witness that replayed is FAIL; anything
 * unknown is BLOCKED. Its key binds the raw capture of the declared inputs and `vkit.lock.json`,
 * whose entry `model:<id>` binds the entry and the accepted checker (`vkit policy accept`).
 */
import { defineKind } from '../../src/config/kind.js';
import { lockBoundNode } from '../../src/formal/lock.js';
import { ModelEntrySchema } from './schema.js';

/** The model-checking profiles this kind runs (`lib/profiles.ts` loads each). */
const MODEL_PROFILE_IDS = ['spin-linux-x86_64-v1', 'tlc-linux-x86_64-v1', 'lean-linux-x86_64-v1'] as const;

export const modelKind = defineKind({
  name: 'model',
  section: 'formal.models',
  entry: ModelEntrySchema,
  rules: { 'model-check': async () => (await import('./rule.js')).modelCheckRule },
  label: (m) => `model:${m.id}`,
  required: (m) => m.required,
  profiles: {
    label: 'model checking',
    ids: MODEL_PROFILE_IDS,
    load: async (id) => (await import('./lib/profiles.js')).loadModelProfile(id),
  },
  lock: async (models, ctx) => (await import('./lock.js')).modelLock(models, ctx),
  expand: (m) => [lockBoundNode('model', 'model-check', m, m.inputs)],
});
