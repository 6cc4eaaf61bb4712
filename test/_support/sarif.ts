/** The SARIF 2.1.0 JSON schema (fixtures/sarif), compiled once: what vkit's SARIF tests validate against. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import AjvDraft04 from 'ajv-draft-04';
import { REPO_ROOT } from './repo.js';

type Validator = ((doc: unknown) => boolean) & { errors?: unknown };
// The package is CommonJS: its class is the default export's `default`.
const Ajv = (AjvDraft04 as unknown as { default: new (options: object) => { compile(schema: object): Validator } })
  .default;

let compiled: Validator | undefined;

/** Validates a SARIF document; the error list when it does not validate, else undefined. */
export function sarifErrors(doc: unknown): string | undefined {
  if (!compiled) {
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'fixtures/sarif/sarif-2.1.0-rtm.5.json'), 'utf8'));
    // The schema's `language` pattern is not valid in Unicode mode (a stray `]`): compiled without it.
    compiled = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false }).compile(schema);
  }
  return compiled(doc) ? undefined : JSON.stringify(compiled.errors, null, 2);
}
