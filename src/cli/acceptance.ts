/**
 * `vkit acceptance <verb>`: parse flags and positionals, call the acceptance service, print the
 * outcome's lines (or its JSON with --json) and exit with its code. Every verb takes --root (paths
 * in documents and on the command line are relative to it) and --json.
 */
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { invalid } from '../errors.js';
import type { Outcome } from '../acceptance/report.js';
import { acceptanceDigest } from '../service/acceptance/digest.js';
import { printJson, type Command } from './args.js';

const BASE = { root: { type: 'string' }, json: { type: 'boolean', default: false } } as const satisfies ParseArgsConfig['options'];

/** Flags plus positionals; a usage error is exit 2. */
export function parseVerb<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    const r = parseArgs({ args, options: { ...BASE, ...options }, strict: true, allowPositionals: true });
    return { values: r.values as ReturnType<typeof parseArgs<{ args: string[]; options: O & typeof BASE; strict: true; allowPositionals: true }>>['values'], positionals: r.positionals, root: resolve((r.values as { root?: string }).root ?? process.cwd()) };
  } catch (error) {
    throw invalid('ERR_USAGE', (error as Error).message, {}, 'See `vkit acceptance <verb> --help` for the flags.');
  }
}

/** `NAME=DIR` pairs of repeatable flags (`--store`, `--tree`); a missing `=` is a usage error. */
export function pairs(flag: string, values: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values ?? []) {
    const at = v.indexOf('=');
    if (at <= 0 || at === v.length - 1) throw invalid('ERR_USAGE', `Expected --${flag} NAME=DIR, got \`${v}\``, { path: `--${flag}` });
    out[v.slice(0, at)] = v.slice(at + 1);
  }
  return out;
}

export function printOutcome(outcome: Outcome, json: boolean | undefined): number {
  if (json) printJson(outcome.json);
  else if (outcome.lines.length) process.stdout.write(outcome.lines.join('\n') + '\n');
  return outcome.exitCode;
}

const digest: Command = async (args) => {
  const { values, positionals, root } = parseVerb(args, { domain: { type: 'string' } });
  const [file, ...extra] = positionals;
  if (!values.domain) throw invalid('ERR_USAGE', 'Expected --domain D', { path: '--domain' });
  if (!file || extra.length) throw invalid('ERR_USAGE', 'Expected exactly one FILE', { path: 'FILE' });
  const result = await acceptanceDigest(values.domain, resolve(root, file), file);
  return printOutcome({ exitCode: 0, lines: [result.digest], json: result }, values.json);
};

/** Verbs by name (`acceptance check`, ...). Each verb's help text is in ACCEPTANCE_HELP. */
export const ACCEPTANCE_COMMANDS: Record<string, Command> = {
  'acceptance digest': digest,
};

export const ACCEPTANCE_HELP: Record<string, string> = {
  'acceptance digest': `Usage: vkit acceptance digest --domain D FILE [--root DIR] [--json]

Prints the M11 digest of FILE: SHA-512 over the ASCII bytes \`D:\` followed by the file's raw bytes,
written \`D:sha-512:<128 hex>\`. Domains: specification, manifest, decision, record, subject, artifact,
inventory, normative-reference. FILE is relative to --root (default: cwd).
`,
};
