/**
 * `change`: change certification. `vkit change certify` (and MCP `change_certify`) accepts an agent's
 * strengthened finite claim about one function only when every obligation holds: the basis is the
 * target's and the candidate preserves it, Z3 proves the logic (entailed by the intent, stronger than
 * the baseline, no legal input dropped, a witness of the strengthening), and Kani verifies the code.
 * The kind runs on requests, not on config entries: its section takes none (a kind must still declare one).
 */
import * as v from 'valibot';
import { defineKind } from '../../src/config/kind.js';
import { bindVerb } from '../../src/kit/verb.js';
import { changeCertify } from './verbs.js';

/** No config entry is meaningful: certification is asked for per request, with the target chosen by the host. */
const NoEntry = v.custom<never>(
  () => false,
  'change certification takes no config entries: run `vkit change certify --request FILE` instead',
);

export const changeKind = defineKind({
  name: 'change',
  section: 'change',
  entry: NoEntry,
  rules: {},
  verbs: [bindVerb(changeCertify, async () => (await import('./cli.js')).changeCertify)],
  tools: async () => (await import('./tools.js')).changeTools,
  schemas: async () => (await import('./schema.js')).PUBLISHED,
  label: () => 'change:none',
  expand: () => [],
});
