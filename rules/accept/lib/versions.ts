/**
 * 0.4.0 refuses 0.3 documents (exit 2) and says what to do instead. 0.3 is recognised by its
 * format id (`acceptance/0.3`, or `acceptance/0` as the 0.3.2 reference writes it), its protocol id (`acceptance-protocol/0`), a `contract` document
 * kind or a `[contract]` binding table. A 0.3 specification or package is converted with
 * `vkit acceptance migrate`; a 0.3 decision cannot be (migrate refuses decisions: a decision is
 * the consumer's judgement of exact bytes, and migrating changes the bytes it judged), so its
 * refusal points at issuing a new decision instead.
 */
import { invalid } from '../../../src/errors.js';
import { str, table, type Doc } from './toml.js';

export const FORMAT_ID = 'acceptance/0.4';
export const PROTOCOL_ID = 'acceptance-protocol/0.4';

export function isVersion03(doc: Doc): boolean {
  const d = doc.data;
  const format = str(table(d, 'format'), 'id');
  const document = table(d, 'document');
  // 0.3.2's own packages say `acceptance/0` (and may carry the protocol id in [format]).
  return (
    format === 'acceptance/0.3' ||
    format === 'acceptance/0' ||
    str(table(d, 'format'), 'protocol') === 'acceptance-protocol/0' ||
    str(document, 'protocol') === 'acceptance-protocol/0' ||
    str(document, 'kind') === 'contract' ||
    table(d, 'contract') !== undefined
  );
}

/**
 * One message, the file as its location (never `F: F is ...`) and the command that helps:
 * `vkit acceptance migrate` for a specification or package, `vkit acceptance decide` for a decision.
 */
export function refuseVersion03(doc: Doc): void {
  if (!isVersion03(doc)) return;
  const message =
    str(table(doc.data, 'document'), 'kind') === 'decision'
      ? 'an acceptance 0.3 decision, and this vkit checks 0.4.0 only. A 0.3 decision cannot be migrated (`vkit acceptance migrate` refuses decisions): migrate its specification and package with `vkit acceptance migrate`, then issue a new 0.4 decision with `vkit acceptance decide` against them.'
      : `an acceptance 0.3 document, and this vkit checks 0.4.0 only. Convert it with \`vkit acceptance migrate ${doc.file}\` (it shows the change; add --write to apply it); a 0.3 decision is never migrated: issue a new one.`;
  throw invalid('ERR_ACCEPTANCE_VERSION', message, { file: doc.file });
}
