/**
 * The built-in kinds, one folder each. Entry points hand this registry in (`installKinds`); job workers
 * load it again from this module's URL. A kind's rules, and the libraries they use, load on demand: a
 * workspace of plain checks never loads the acceptance, model or formal code.
 */
import { defineRegistry } from '../src/config/kind.js';
import { acceptKind } from './accept/index.js';
import { actionsKind } from './actions/index.js';
import { checkKind } from './check/index.js';
import { compareKind } from './compare/index.js';
import { formalKind } from './formal/index.js';

export const registry = defineRegistry(import.meta.url, [checkKind, actionsKind, compareKind, acceptKind, formalKind]);
