/**
 * The command table (src/cli/table.ts) is the CLI's one source: docs/cli.md's CLI table is rendered from
 * it, every verb's help and flags agree, and `--help` and `--version` read it without loading any
 * handler.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { registry } from '../../rules/index.js';
import {
  allVerbs,
  CLI_TABLE_END,
  CLI_TABLE_PAGE,
  CLI_TABLE_START,
  cliTable,
  resolveVerb,
  synopsis,
} from '../../src/cli/table.js';
import { installKinds } from '../../src/config/kind.js';
import { REPO_ROOT, vkit } from '../_support/repo.js';

installKinds(registry);
/** vkit's own verbs and the built-in kinds' (`vkit model compare`). */
const VERBS = await allVerbs();

test('docs/cli.md holds exactly the CLI table rendered from the command table (npm run docs:cli rewrites it)', () => {
  const page = readFileSync(join(REPO_ROOT, CLI_TABLE_PAGE), 'utf8');
  const start = page.indexOf(CLI_TABLE_START);
  const end = page.indexOf(CLI_TABLE_END);
  assert.ok(start >= 0 && end > start, `${CLI_TABLE_PAGE} has ${CLI_TABLE_START} ... ${CLI_TABLE_END}`);
  assert.equal(page.slice(start + CLI_TABLE_START.length, end), `\n${cliTable(VERBS)}\n`, 'npm run docs:cli');
});

test('every verb: a unique name, help that starts with its usage, one row in the CLI table, one line in vkit --help', () => {
  const names = VERBS.map((v) => v.spec.name);
  assert.equal(new Set(names).size, names.length, 'unique names');
  const main = vkit(['--help']).stdout;
  const rows = cliTable(VERBS).split('\n');
  for (const { spec } of VERBS) {
    assert.match(spec.help, new RegExp(`^Usage: vkit ${spec.name}\\b`), spec.name);
    assert.ok(spec.help.endsWith('\n'), `${spec.name}: help ends with a newline`);
    assert.equal(rows.filter((row) => row.startsWith(`| \`vkit ${spec.name} `)).length, 1, spec.name);
    assert.ok(synopsis(spec).startsWith(`vkit ${spec.name}`), spec.name);
    const [group, verb] = spec.name.split(' ');
    const line = group === 'acceptance' ? `    ${verb} ` : `  ${spec.label ?? spec.name} `;
    assert.ok(main.includes(`\n${line}`), `vkit --help lists ${spec.name}`);
    assert.ok(main.includes(spec.summary), spec.name);
  }
});

test("a kind's verb in a group vkit already lists joins it: `formal qualify` (the qualify kind's) right after `formal package`", () => {
  const qualifyKind = registry.kinds.find((k) => k.name === 'qualify');
  assert.deepEqual(
    qualifyKind?.verbs?.map((v) => v.spec.name),
    ['formal qualify'],
  );
  const names = VERBS.map((v) => v.spec.name);
  assert.equal(names.indexOf('formal qualify'), names.indexOf('formal package') + 1, names.join(', '));
  // A verb in a group of its own still comes after vkit's verbs, in the registry's order.
  assert.ok(names.indexOf('model compare') > names.indexOf('image build'));
  const main = vkit(['--help']).stdout;
  assert.match(
    main,
    /\n {2}formal package digest \[ID\] +the identity[^\n]*\n {2}formal qualify +qualify a mathematical/,
  );
});

test("every flag a verb's usage names is one it parses, and every flag it parses is in its help", () => {
  for (const { spec } of VERBS) {
    const usage = spec.help.slice(0, spec.help.indexOf('\n\n'));
    for (const [, flag] of usage.matchAll(/--([a-z][a-z-]*)/g))
      assert.ok(flag! in spec.flags, `${spec.name}: its usage names --${flag}`);
    const common = /common flags/i.test(spec.help) ? ['root', 'store', 'json', 'jobs'] : [];
    const unnamed = Object.keys(spec.flags).filter(
      (flag) => !spec.help.includes(`--${flag}`) && !common.includes(flag),
    );
    assert.deepEqual(unnamed, [], `${spec.name}: flags it accepts that its help does not name`);
  }
});

test('the command line resolves through the table: groups, verbs, unknown names', () => {
  assert.deepEqual(resolveVerb(['acceptance'], VERBS), { kind: 'group', help: false });
  assert.deepEqual(resolveVerb(['run', '-h'], VERBS), { kind: 'group', help: true });
  const show = resolveVerb(['run', 'show', '--run', 'x'], VERBS);
  assert.ok(show.kind === 'verb' && show.verb?.spec.name === 'run show');
  assert.deepEqual(show.kind === 'verb' && show.args, ['--run', 'x']);
  const unknown = resolveVerb(['store', 'explode'], VERBS);
  assert.ok(unknown.kind === 'verb' && unknown.name === 'store explode' && unknown.verb === undefined);
  const digest = resolveVerb(['formal', 'package', 'digest', 'ID'], VERBS);
  assert.ok(digest.kind === 'verb' && digest.verb?.spec.name === 'formal package');
  assert.deepEqual(digest.kind === 'verb' && digest.args, ['digest', 'ID']);
  const compare = resolveVerb(['model', 'compare', '--request', 'r.json'], VERBS);
  assert.ok(compare.kind === 'verb' && compare.verb?.spec.name === 'model compare', 'a verb a kind adds');
  for (const args of [['no-such-verb'], ['run', 'nope', '--help'], ['formal', 'package', '--bogus'], ['model', 'nope']])
    assert.equal(vkit(args).code, 2, args.join(' '));
  assert.equal(vkit(['formal', 'package', '--help']).code, 0);
});

/** Every module a `runCli(argv)` call loads, as paths relative to the repository (or `node:` names). */
function modulesLoaded(argv: string[]): { code: number | null; modules: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-modules-'));
  try {
    const log = join(dir, 'loaded.txt');
    // A module hook (its own thread) appends every URL node loads to the log, synchronously.
    const hooks = `import { appendFileSync } from 'node:fs';
      let log; export function initialize(data) { log = data.log; }
      export async function load(url, context, next) { appendFileSync(log, url + '\\n'); return next(url, context); }`;
    const register = `import { register } from 'node:module';
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}), { data: { log: ${JSON.stringify(log)} } });`;
    const main = pathToFileURL(join(REPO_ROOT, 'dist', 'src', 'cli', 'main.js')).href;
    const kind = pathToFileURL(join(REPO_ROOT, 'dist', 'src', 'config', 'kind.js')).href;
    const rules = pathToFileURL(join(REPO_ROOT, 'dist', 'rules', 'index.js')).href;
    const r = spawnSync(
      process.execPath,
      [
        '--import',
        `data:text/javascript,${encodeURIComponent(register)}`,
        '--input-type=module',
        '-e',
        `const { runCli } = await import(${JSON.stringify(main)}); const { installKinds } = await import(${JSON.stringify(kind)}); installKinds(${JSON.stringify(rules)}); process.exitCode = await runCli(${JSON.stringify(argv)});`,
      ],
      { encoding: 'utf8', env: { ...process.env, VKIT_DAEMON: '0' } },
    );
    const urls = readFileSync(log, 'utf8').trim().split('\n');
    const modules = urls
      .filter((url) => url.startsWith('file:'))
      .map((url) => relative(REPO_ROOT, fileURLToPath(url)))
      .sort();
    return { code: r.status, modules };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("--version and a verb's --help load the command table only; --help adds the kinds' declarations, never a handler or the service", () => {
  // main.ts's guard, its output batching (coalesce.ts, used by build and gate) and its write-error watch (output-failure.ts) are part of the CLI's shell.
  // The kind API (installed by the entry point) and the verb declarations in kit/ are part of it too.
  const light =
    /^dist\/src\/(errors\.js|cli\/(main|table|coalesce|output-failure)\.js|cli\/verbs\/[a-z]+\.js|kit\/verb\.js|text\/suggest\.js|config\/(kind|import-module)\.js)$/;
  for (const argv of [['--version'], ['run', 'show', '--help']]) {
    const { code, modules } = modulesLoaded(argv);
    assert.equal(code, 0, argv.join(' '));
    assert.ok(modules.includes('dist/src/cli/main.js'), `the hook saw the CLI load: ${modules.join(', ')}`);
    assert.deepEqual(
      modules.filter((m) => !light.test(m)),
      [],
      `${argv.join(' ')} loads only the table`,
    );
  }
  // `vkit --help` lists the verbs the kinds add, so it loads the registry: declarations and schemas only.
  const heavy =
    /^dist\/src\/(service|engine|jobs|store|mcp|tui|daemon)\/|^dist\/src\/cli\/(?!(main|table|coalesce|output-failure)\.js|verbs\/)|^dist\/rules\/[a-z]+\/(rule|cli|tools|service)\.js$|^dist\/rules\/[a-z]+\/lib\//;
  for (const argv of [['--help'], ['model', 'compare', '--help'], ['acceptance', 'check', '--help']]) {
    const { code, modules } = modulesLoaded(argv);
    assert.equal(code, 0, argv.join(' '));
    assert.ok(modules.includes('dist/rules/compare/verbs.js'), modules.join(', '));
    assert.deepEqual(
      modules.filter((m) => heavy.test(m)),
      [],
      `${argv.join(' ')} loads no handler, rule, library or service`,
    );
  }
  // The same hook sees a verb's handler load when the verb runs.
  const { modules } = modulesLoaded(['formal', 'package', 'digest', '--json']);
  assert.ok(modules.includes('dist/src/cli/formal.js'), modules.join(', '));
});
