/**
 * The built-in kinds, one folder each. Entry points hand this registry in (`installKinds`); job workers
 * load it again from this module's URL. A kind's rules, and the libraries they use, load on demand: a
 * workspace of plain checks never loads the acceptance, model or formal code.
 */
import { defineRegistry, type ConfigSectionsOf, type ManifestSectionsOf } from '../src/config/kind.js';
import type { ConfigCore, Manifest } from '../src/config/types.js';
import { acceptKind } from './accept/index.js';
import { actionsKind } from './actions/index.js';
import { changeKind } from './change/index.js';
import { checkKind } from './check/index.js';
import { compareKind } from './compare/index.js';
import { formalKind } from './formal/index.js';
import { modelKind } from './model/index.js';
import { qualifyKind } from './qualify/index.js';

export const registry = defineRegistry(import.meta.url, [
  checkKind,
  actionsKind,
  compareKind,
  acceptKind,
  formalKind,
  qualifyKind,
  modelKind,
  changeKind,
]);

/** A config with the built-in kinds, typed from their entry schemas: what `defineConfig` checks (a misspelt section is a type error). */
export type BuiltinConfig = ConfigCore & ConfigSectionsOf<typeof registry>;
/** A resolved manifest with the built-in kinds' sections. */
export type BuiltinManifest = Manifest & ManifestSectionsOf<typeof registry>;
