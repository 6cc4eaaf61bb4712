/**
 * `vkit acceptance <verb>`'s handlers (declared in `verbs.ts`, bound in `index.ts`): check
 * the positionals, call the acceptance service, print the outcome's lines (or its JSON with --json)
 * and exit with its code. Every verb takes --root (paths in documents and on the command line are
 * relative to it) and --json.
 */
import { resolve } from 'node:path';
import { invalid } from '../../src/errors.js';
import { clipRuns, type Outcome } from './lib/report.js';
import { checkFiles } from './service/check.js';
import { acceptanceDigest } from './service/digest.js';
import { checkDecision as checkDecisionFiles, decide as decideDraft } from './service/decision.js';
import { renderFiles } from './service/render.js';
import { checkPackageFiles, checkSpecFile, coverageFiles } from './service/package.js';
import { acceptanceMigrate } from './service/migrate.js';
import { acceptanceRun } from './service/run.js';
import { acceptanceWitness } from './service/witness.js';
import { type Handler, printJson } from '../../src/kit/verb.js';
import type * as verbs from './verbs.js';

/** The root every path is relative to: --root, or the working directory. */
const rootOf = (values: { root?: string }) => resolve(values.root ?? process.cwd());

/** `NAME=DIR` pairs of repeatable flags (`--store`, `--tree`); a missing `=` is a usage error. */
function pairs(flag: string, values: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values ?? []) {
    const at = v.indexOf('=');
    if (at <= 0 || at === v.length - 1)
      throw invalid('ERR_USAGE', `Expected --${flag} NAME=DIR, got \`${v}\``, { path: `--${flag}` });
    out[v.slice(0, at)] = v.slice(at + 1);
  }
  return out;
}

/** Every printed line with its long runs cut: a value echoed from a document never floods the terminal. */
function printOutcome(outcome: Outcome, json: boolean | undefined): number {
  if (outcome.stderr?.length) process.stderr.write(`${outcome.stderr.map(clipRuns).join('\n')}\n`);
  if (json) printJson(outcome.json);
  else if (outcome.lines.length) process.stdout.write(`${outcome.lines.map(clipRuns).join('\n')}\n`);
  return outcome.exitCode;
}

export const digest: Handler<typeof verbs.digest> = async ({ values, positionals }) => {
  const root = rootOf(values);
  const [file, ...extra] = positionals;
  if (!values.domain) throw invalid('ERR_USAGE', 'Expected --domain D', { path: '--domain' });
  if (!file || extra.length) throw invalid('ERR_USAGE', 'Expected exactly one FILE', { path: 'FILE' });
  const result = await acceptanceDigest(values.domain, resolve(root, file), file);
  return printOutcome({ exitCode: 0, lines: [result.digest], json: result }, values.json);
};

export const render: Handler<typeof verbs.render> = async ({ values, positionals }) => {
  const root = rootOf(values);
  const [spec, pkg, decision, ...extra] = positionals;
  if (!spec || !pkg || extra.length)
    throw invalid('ERR_USAGE', 'Expected S P [D]: the specification, the package and optionally the decision', {
      path: 'FILE',
    });
  const stores = Object.fromEntries(
    Object.entries(pairs('store', values.store)).map(([k, d]) => [k, resolve(root, d)]),
  );
  const trees = Object.fromEntries(Object.entries(pairs('tree', values.tree)).map(([k, d]) => [k, resolve(root, d)]));
  return printOutcome(await renderFiles({ root, spec, package: pkg, decision, stores, trees }), values.json);
};

export const check: Handler<typeof verbs.check> = async ({ values, positionals }) => {
  const root = rootOf(values);
  if (positionals.length === 0) throw invalid('ERR_USAGE', 'Expected at least one FILE', { path: 'FILE' });
  return printOutcome(
    await checkFiles(positionals, { root, strict: values.strict, strictWeight: values['strict-weight'] }),
    values.json,
  );
};

/** `check-decision D --spec S --package P [--effect [--now D] [--allow-conditions]]` and `decide P --spec S --issuer NAME --out D`. */
const dirPairs = (root: string, flag: string, values: string[] | undefined) =>
  Object.fromEntries(Object.entries(pairs(flag, values)).map(([k, d]) => [k, resolve(root, d)]));

export const checkDecision: Handler<typeof verbs.checkDecision> = async ({ values, positionals }) => {
  const root = rootOf(values);
  const [decision, ...extra] = positionals;
  if (!decision || extra.length) throw invalid('ERR_USAGE', 'Expected exactly one decision document D', { path: 'D' });
  if (!values.spec) throw invalid('ERR_USAGE', 'Expected --spec S', { path: '--spec' });
  if (!values.package) throw invalid('ERR_USAGE', 'Expected --package P', { path: '--package' });
  if (!values.effect && (values.now !== undefined || values['allow-conditions']))
    throw invalid('ERR_USAGE', '--now and --allow-conditions only apply with --effect', { path: '--effect' });
  const effect = values.effect ? { now: values.now, allowConditions: values['allow-conditions'] } : undefined;
  return printOutcome(
    await checkDecisionFiles({
      root,
      decision,
      spec: values.spec,
      package: values.package,
      stores: dirPairs(root, 'store', values.store),
      trees: dirPairs(root, 'tree', values.tree),
      ...(effect ? { effect } : {}),
    }),
    values.json,
  );
};

export const decide: Handler<typeof verbs.decide> = async ({ values, positionals }) => {
  const root = rootOf(values);
  const [pkg, ...extra] = positionals;
  if (!pkg || extra.length) throw invalid('ERR_USAGE', 'Expected exactly one package document P', { path: 'P' });
  for (const flag of ['spec', 'issuer', 'out'] as const)
    if (!values[flag]) throw invalid('ERR_USAGE', `Expected --${flag}`, { path: `--${flag}` });
  return printOutcome(
    await decideDraft({
      root,
      package: pkg,
      spec: values.spec!,
      issuer: values.issuer!,
      out: values.out!,
      force: values.force,
      stores: dirPairs(root, 'store', values.store),
      trees: dirPairs(root, 'tree', values.tree),
      ...(values.role ? { role: values.role } : {}),
      ...(values.id ? { id: values.id } : {}),
    }),
    values.json,
  );
};

/** `S` alone; `P --spec S` with --store/--tree for stack requirements (check-package and coverage). */
export const checkSpec: Handler<typeof verbs.checkSpec> = async ({ values, positionals }) => {
  const root = rootOf(values);
  if (positionals.length !== 1) throw invalid('ERR_USAGE', 'Expected exactly one specification file S', { path: 'S' });
  return printOutcome(await checkSpecFile(positionals[0]!, { root }), values.json);
};

function packageVerb(run: typeof checkPackageFiles | typeof coverageFiles): Handler<typeof verbs.checkPackage> {
  return async ({ values, positionals }) => {
    const root = rootOf(values);
    if (positionals.length !== 1) throw invalid('ERR_USAGE', 'Expected exactly one package file P', { path: 'P' });
    if (!values.spec) throw invalid('ERR_USAGE', 'Expected --spec S naming the specification', { path: '--spec' });
    const stores = Object.fromEntries(
      Object.entries(pairs('store', values.store)).map(([k, d]) => [k, resolve(root, d)]),
    );
    const trees = Object.fromEntries(Object.entries(pairs('tree', values.tree)).map(([k, d]) => [k, resolve(root, d)]));
    return printOutcome(await run(positionals[0]!, values.spec, { root, stores, trees }), values.json);
  };
}

/** `--timeout SECONDS` for the verbs that run self_verify commands. */
function timeoutMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw invalid('ERR_USAGE', `Expected --timeout to be a positive number of seconds, got \`${value}\``, {
      path: '--timeout',
    });
  return Math.round(n * 1000);
}

export const migrate: Handler<typeof verbs.migrate> = async ({ values, positionals }) => {
  return printOutcome(
    await acceptanceMigrate({ root: rootOf(values), files: positionals, write: values.write }),
    values.json,
  );
};

export const run: Handler<typeof verbs.run> = async ({ values, positionals }) => {
  const root = rootOf(values);
  if (positionals.length !== 1) throw invalid('ERR_USAGE', 'Expected exactly one package file P', { path: 'P' });
  return printOutcome(
    await acceptanceRun({
      root,
      file: positionals[0]!,
      claims: values.claim,
      yes: values['yes-run-commands'],
      timeoutMs: timeoutMs(values.timeout),
    }),
    values.json,
  );
};

export const witness: Handler<typeof verbs.witness> = async ({ values, positionals }) => {
  const root = rootOf(values);
  if (positionals.length !== 1) throw invalid('ERR_USAGE', 'Expected exactly one package file P', { path: 'P' });
  if (!values.claim) throw invalid('ERR_USAGE', 'Expected --claim ID', { path: '--claim' });
  if (values.replace !== undefined && (values.old === undefined || values.new === undefined))
    throw invalid('ERR_USAGE', '--replace PATH needs --old TEXT and --new TEXT', { path: '--replace' });
  if (values.replace === undefined && (values.old !== undefined || values.new !== undefined))
    throw invalid('ERR_USAGE', '--old and --new go with --replace PATH', { path: '--old' });
  const replace =
    values.replace === undefined ? undefined : { path: values.replace, old: values.old!, new: values.new! };
  return printOutcome(
    await acceptanceWitness({
      root,
      file: positionals[0]!,
      claim: values.claim,
      patch: values.patch,
      replace,
      timeoutMs: timeoutMs(values.timeout),
    }),
    values.json,
  );
};

export const checkPackage = packageVerb(checkPackageFiles);
export const coverage = packageVerb(coverageFiles);
