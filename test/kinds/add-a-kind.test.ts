/**
 * Adding a kind is one folder plus one registry line: the fixture kind in
 * test/kinds/fixture/wordlimit/ is validated, compiled, run in a real detached worker (which loads
 * the registry module by its URL), cached, re-identified on an edit and gated like a built-in kind;
 * its CLI verb is listed and run by the CLI, and its MCP tool listed and called by a real MCP client;
 * while src/ and rules/ know nothing of it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { registry as builtin } from '../../rules/index.js';
import { installKinds } from '../../src/config/kind.js';
import { loadConfig } from '../../src/config/load.js';
import { InvalidInputError } from '../../src/errors.js';
import { build, gate } from '../../src/service/index.js';
import { childEnv, connect } from '../_support/mcp-client.js';
import { REPO_ROOT, tempRepo } from '../_support/repo.js';
import { registry as withWordLimit } from './fixture/registry.js';

const CONFIG = `
import { defineConfig } from 'vkit';
export default defineConfig({
  checks: [{ id: 'lint', run: ['true'], inputs: ['README.md'] }],
  wordlimits: [{ id: 'readme', file: 'README.md', max: 5 }],
} as never);
`;

test('a kind added in a fixture folder runs, caches and gates like a built-in one', async () => {
  const repo = tempRepo({ 'README.md': 'one two three\n', 'vkit.config.ts': CONFIG });
  const open = { root: repo.dir, store: join(repo.dir, '.store') };
  try {
    // Without the kind, its section is an unknown key: exit 2 naming it.
    installKinds(builtin);
    await assert.rejects(loadConfig(repo.dir), (e: unknown) => {
      assert.ok(e instanceof InvalidInputError);
      assert.match(e.message + JSON.stringify(e.issues), /wordlimits/);
      return true;
    });

    installKinds(withWordLimit);
    const first = await build(open);
    assert.deepEqual(
      first.actions.map((a) => [a.label, a.kind, a.status]),
      [
        ['check:lint', 'check', 'ran'],
        ['words:readme', 'words', 'ran'],
      ],
    );
    assert.equal(first.gate.status, 'READY');

    const again = await build(open);
    assert.deepEqual(
      again.actions.map((a) => a.status),
      ['cached', 'cached'],
    );

    // An edit re-identifies it (its input is in its key): the gate sees STALE, the build reruns and fails.
    repo.write('README.md', 'one two three four five six seven\n');
    const stale = await gate(open);
    assert.equal(stale.gate.items.find((i) => i.id === 'words:readme')?.status, 'STALE');
    const failed = await build(open, { only: ['readme'] });
    const item = failed.gate.items.find((i) => i.id === 'words:readme');
    assert.equal(item?.status, 'FAIL');
    assert.match(item?.reason ?? '', /7 words > 5/);
    assert.equal(failed.gate.status, 'REJECTED');
    // `--only readme` reads the new kind's label the one way every kind's is read.
    assert.deepEqual(
      failed.gate.items.map((i) => i.id),
      ['words:readme'],
    );

    // A duplicate label across the kind's entries is the generic config error.
    repo.write(
      'vkit.config.ts',
      CONFIG.replace(
        "{ id: 'readme', file: 'README.md', max: 5 }",
        "{ id: 'a', file: 'README.md', max: 5 }, { id: 'a', file: 'README.md', max: 9 }",
      ),
    );
    await assert.rejects(loadConfig(repo.dir), (e: unknown) => {
      assert.ok(e instanceof InvalidInputError);
      assert.deepEqual(
        e.issues.map((i) => [i.path, i.message]),
        [['wordlimits[1].id', 'Duplicate id: `words:a` is already declared at wordlimits[0].id']],
      );
      return true;
    });
  } finally {
    installKinds(builtin);
    repo.cleanup();
  }
});

/** The CLI with the fixture kind installed (a distribution's entry point). */
const WITH_WORDS = join(REPO_ROOT, 'dist', 'test', 'kinds', 'fixture', 'vkit-with-words.js');

test("a kind's verb and MCP tool are served beside vkit's own, from its folder alone", async () => {
  const repo = tempRepo({ 'README.md': 'one two three\n' });
  try {
    const cli = (args: string[]) =>
      spawnSync(process.execPath, [WITH_WORDS, ...args], { cwd: repo.dir, encoding: 'utf8', env: childEnv() });
    const help = cli(['--help']);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /\n {2}words count +count the words of a file\n/);
    assert.match(help.stdout, /\n {2}model compare /, "the built-in kinds' verbs stay");
    assert.match(help.stdout, /\n {2}build /);
    assert.match(cli(['words', 'count', '--help']).stdout, /^Usage: vkit words count FILE/);
    const counted = cli(['words', 'count', 'README.md', '--json']);
    assert.equal(counted.status, 0, counted.stderr);
    assert.deepEqual(JSON.parse(counted.stdout), { file: 'README.md', words: 3 });
    // Its flags are parsed strictly like any verb's: a usage error is exit 2.
    assert.equal(cli(['words', 'count', 'README.md', '--bogus']).status, 2);
    assert.equal(cli(['words', 'nope']).status, 2);

    const session = await connect(repo, join(repo.dir, '.store'), [], WITH_WORDS);
    try {
      const names = (await session.client.listTools()).tools.map((t) => t.name);
      for (const name of ['words_count', 'model_compare', 'build', 'gate'])
        assert.ok(names.includes(name), names.join(', '));
      const r = await session.call('words_count', { file: 'README.md' });
      assert.equal(r.isError, false, JSON.stringify(r.json));
      assert.deepEqual(r.json, { file: 'README.md', words: 3 });
      // Its input schema is strict like every tool's.
      await assert.rejects(session.client.callTool({ name: 'words_count', arguments: { file: 'README.md', x: 1 } }));
    } finally {
      await session.close();
    }
  } finally {
    repo.cleanup();
  }
});
