/**
 * 0.4.0 refuses 0.3 documents (exit 2) and names the migration verb. 0.3 is recognised by its
 * format id (`acceptance/0.3`, or `acceptance/0` as the 0.3.2 reference writes it), its protocol id (`acceptance-protocol/0`), a `contract` document
 * kind or a `[contract]` binding table.
 */
import { invalid } from '../errors.js';
import { str, table, type Doc } from './toml.js';

export const FORMAT_ID = 'acceptance/0.4';
export const PROTOCOL_ID = 'acceptance-protocol/0.4';

export function isVersion03(doc: Doc): boolean {
  const d = doc.data;
  const format = str(table(d, 'format'), 'id');
  const document = table(d, 'document');
  // 0.3.2's own packages say `acceptance/0` (and may carry the protocol id in [format]).
  return format === 'acceptance/0.3' || format === 'acceptance/0' || str(table(d, 'format'), 'protocol') === 'acceptance-protocol/0' || str(document, 'protocol') === 'acceptance-protocol/0' || str(document, 'kind') === 'contract' || table(d, 'contract') !== undefined;
}

export function refuseVersion03(doc: Doc): void {
  if (isVersion03(doc)) {
    throw invalid('ERR_ACCEPTANCE_VERSION', `${doc.file} is an acceptance 0.3 document; this vkit checks 0.4.0 only`, { file: doc.file }, `Convert it with \`vkit acceptance migrate ${doc.file}\` (add --write to apply); decisions are never migrated: issue a new one.`);
  }
}
