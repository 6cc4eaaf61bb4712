/**
 * `vkit mcp` through a real SDK client: the tool list and its strict schemas, then every tool against
 * a temp repo with real checks, workers, store and feedback directory.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { nodeCheck, tempRepo, type TempRepo } from '../_support/repo.js';
import { compareRequestObject, connect, type McpSession } from '../_support/mcp-client.js';

/** What a project whose config declares checks only is offered: no formal or acceptance tools. */
const TOOL_NAMES = [
  'build',
  'change_certify',
  'checks_list',
  'evidence_export',
  'evidence_replay',
  'feedback_add',
  'feedback_list',
  'gate',
  'model_compare',
  'run_cancel',
  'run_retry',
  'run_show',
  'run_wait',
  'runs_list',
  'verify',
];

let repo: TempRepo;
let mcp: McpSession;

before(async () => {
  repo = tempRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  repo.manifest({
    checks: [
      { id: 'a', run: nodeCheck("console.log('line 1 from a'); console.log('line 2 from a')"), inputs: ['a.txt'] },
      { id: 'b', run: nodeCheck("console.error('from b')"), inputs: ['b.txt'], after: ['a'] },
    ],
  });
  repo.age('a.txt');
  repo.age('b.txt');
  mcp = await connect(repo);
});

after(async () => {
  await mcp?.close();
  repo?.cleanup();
});

test('listTools: exactly the 15 tools a checks-only project can use, each with an object input schema that rejects unknown keys', async () => {
  const { tools } = await mcp.client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), TOOL_NAMES);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.equal(
      (t.inputSchema as { additionalProperties?: unknown }).additionalProperties,
      false,
      `${t.name} rejects unknown keys`,
    );
    assert.ok(t.description && t.description.length > 20, `${t.name} is described`);
  }
  const byName = Object.fromEntries(
    tools.map((t) => [t.name, t.inputSchema as { properties: Record<string, any>; required?: string[] }]),
  );
  assert.ok(
    byName.verify!.properties.check && byName.verify!.properties.request,
    'verify takes a check or a formal request',
  );
  assert.deepEqual(byName.build!.properties.wait_s, {
    description: byName.build!.properties.wait_s.description,
    type: 'number',
    minimum: 0,
    maximum: 50,
  });
  assert.deepEqual(byName.run_show!.properties.sections.items.enum, [
    'diagnostics',
    'obligations',
    'provenance',
    'coverage',
    'compilation',
    'artifacts',
    'log',
    'all',
  ]);
  assert.deepEqual(byName.feedback_add!.properties.kind.enum, ['formal', 'reliable']);
  assert.deepEqual(byName.runs_list!.properties.limit, {
    description: byName.runs_list!.properties.limit.description,
    type: 'integer',
    minimum: 1,
    maximum: 500,
  });
  assert.deepEqual(byName.model_compare!.required, ['request']);
});

test('build: READY with wait_s; without it a build id at once, then run_wait returns the report', async () => {
  const waited = await mcp.call('build', { wait_s: 40 });
  assert.equal(waited.isError, false, JSON.stringify(waited.json));
  assert.equal(waited.json.schema, 'vkit.build/1');
  assert.equal(waited.json.gate.status, 'READY');
  assert.deepEqual(
    waited.json.actions.map((a: any) => [a.label, a.status, a.outcome]),
    [
      ['check:a', 'ran', 'PASS'],
      ['check:b', 'ran', 'PASS'],
    ],
  );

  const started = await mcp.call('build', { force: true, only: ['a'] });
  assert.equal(started.isError, false);
  assert.match(started.json.build, /^build_/);
  assert.equal(started.json.state, 'running');
  const report = await mcp.call('run_wait', { run: started.json.build, timeout_s: 40 });
  assert.equal(report.isError, false, JSON.stringify(report.json));
  assert.equal(report.json.schema, 'vkit.build/1');
  assert.deepEqual(
    report.json.actions.map((a: any) => [a.label, a.status]),
    [['check:a', 'ran']],
    'only a, forced',
  );
  assert.equal(report.json.gate.status, 'READY');
  // Asking again returns the same report: the server keeps finished builds for a while.
  const again = await mcp.call('run_wait', { run: started.json.build, timeout_s: 0 });
  assert.deepEqual(again.json, report.json);

  const unknown = await mcp.call('run_wait', { run: 'build_nope' });
  assert.equal(unknown.isError, true);
  assert.equal(unknown.json.error.code, 'ERR_USAGE');
  assert.equal(unknown.json.error.exit_code, 2);
});

test('formal_qualify (offered where no config says otherwise) answers with an id at once; a package without a catalogue is a usage error on the wait', async () => {
  const bare = tempRepo({});
  const session = await connect(bare);
  try {
    const { tools } = await session.client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ['formal_qualify', 'acceptance_check_decision', 'acceptance_render', 'checks_list'])
      assert.ok(names.includes(name), `${name} is offered without a config`);
    // The qualify kind's tool keeps its place in the list (`listedAfter: 'build'`), the other kinds' come last.
    assert.deepEqual(names.slice(0, 3), ['build', 'formal_qualify', 'verify']);
    assert.deepEqual(names.slice(-4), [
      'model_compare',
      'acceptance_check_decision',
      'acceptance_render',
      'change_certify',
    ]);
    const started = await session.call('formal_qualify', { package: 'vkit.nope', profile: 'coq-linux-x86_64-v1' });
    assert.equal(started.isError, false, JSON.stringify(started.json));
    assert.match(started.json.build, /^build_/);
    const waited = await session.call('run_wait', { run: started.json.build, timeout_s: 30 });
    assert.equal(waited.isError, true);
    assert.equal(waited.json.error.code, 'ERR_CATALOGUE_INVALID');
    assert.equal(waited.json.error.exit_code, 2);
  } finally {
    await session.close();
    bare.cleanup();
  }
});

test('a tool left out for this config is refused saying why, not as an unknown name', async () => {
  await assert.rejects(mcp.client.callTool({ name: 'formal_qualify', arguments: {} }), (error: Error) => {
    assert.match(
      error.message,
      /not offered: this project's config has no formal\.components or formal\.models or formal\.qualifications entries/,
    );
    return true;
  });
});

test('checks_list: every declared item with its command, inputs and what it runs after, in dependency order', async () => {
  const listed = await mcp.call('checks_list', {});
  assert.equal(listed.isError, false, JSON.stringify(listed.json));
  assert.deepEqual(
    listed.json.items.map((i: Record<string, unknown>) => [i.label, i.kind, i.id, i.inputs, i.after, i.required]),
    [
      ['check:a', 'check', 'a', ['a.txt'], [], true],
      ['check:b', 'check', 'b', ['b.txt'], ['check:a'], true],
    ],
  );
  assert.match(String(listed.json.items[1].run), /from b/);
  assert.equal(listed.json.items[1].declared_at, 'checks[1]');
  assert.match(listed.json.config, /vkit\.manifest\.json$/);
});

test('verify without wait_s returns a pending run at once; run_wait gives PASS; reuse returns that run', async () => {
  const v = await mcp.call('verify', { check: 'a' });
  assert.equal(v.isError, false, JSON.stringify(v.json));
  assert.match(v.json.run, /^run_/);
  assert.equal(v.json.state, 'running');
  assert.equal(v.json.action.pending, true);
  assert.equal(v.json.gate.schema, 'vkit.gate/1');

  const w = await mcp.call('run_wait', { run: v.json.run, timeout_s: 30 });
  assert.equal(w.isError, false);
  assert.equal(w.json.schema, 'vkit.run/1');
  assert.equal(w.json.timed_out, false);
  assert.equal(w.json.summary.run, v.json.run);
  assert.equal(w.json.summary.state, 'done');
  assert.equal(w.json.summary.outcome, 'PASS');

  const reused = await mcp.call('verify', { check: 'a', reuse: true, wait_s: 20 });
  assert.equal(reused.json.action.status, 'cached');
  assert.equal(reused.json.run, v.json.run);
  assert.equal(reused.json.state, 'done');

  const waitedFresh = await mcp.call('verify', { check: 'check:b', wait_s: 30 });
  assert.equal(waitedFresh.json.state, 'done');
  assert.equal(waitedFresh.json.action.outcome, 'PASS');
  assert.equal(waitedFresh.json.action.pending, undefined);
  assert.equal(waitedFresh.json.gate.status, 'READY');

  const bad = await mcp.call('verify', { check: 'nope' });
  assert.equal(bad.isError, true);
  assert.equal(bad.json.error.code, 'ERR_USAGE');
  assert.equal(bad.json.error.exit_code, 2);
  assert.match(bad.json.error.message, /nope/);
  // In the tool's words: the caller passed an argument `check`, never a flag.
  assert.equal(bad.json.error.where, 'check');
  assert.match(bad.json.error.message, /argument `check`/);
  assert.doesNotMatch(JSON.stringify(bad.json.error), /--check/);
  assert.equal(bad.json.error.issues.length, 1);
});

test('run_show sections (coverage not applicable, paged log, all); run_retry; runs_list', async () => {
  const runs = await mcp.call('runs_list', { check: 'a' });
  assert.equal(runs.json.schema, 'vkit.runs/1');
  assert.ok(runs.json.runs.length >= 3);
  assert.ok(runs.json.runs.every((r: any) => r.label === 'check:a'));
  const run = runs.json.runs[0].run;
  assert.equal((await mcp.call('runs_list', { limit: 1 })).json.runs.length, 1);
  const all = (await mcp.call('runs_list', {})).json.runs;
  assert.ok(all.some((r: any) => r.label === 'check:b'));

  const shown = await mcp.call('run_show', { run, sections: ['diagnostics', 'log', 'coverage'], page: 1 });
  assert.equal(shown.isError, false);
  assert.equal(shown.json.summary.run, run);
  assert.equal(shown.json.summary.outcome, 'PASS');
  assert.deepEqual(shown.json.diagnostics, { outcome: 'PASS', reason: null, exit_code: 0, expected: 0 });
  assert.deepEqual(shown.json.log.stdout.lines, ['line 1 from a', 'line 2 from a']);
  assert.equal(shown.json.log.stdout.page, 1);
  assert.equal(shown.json.coverage.applicable, false);
  assert.match(shown.json.coverage.note, /not applicable/);
  assert.equal(shown.json.provenance, undefined, 'only the asked sections');

  const everything = await mcp.call('run_show', { run, sections: ['all'] });
  for (const s of ['diagnostics', 'obligations', 'provenance', 'coverage', 'compilation', 'artifacts', 'log'])
    assert.ok(s in everything.json, s);
  assert.equal(everything.json.compilation.applicable, false);
  const past = await mcp.call('run_show', { run, sections: ['log'], page: 5 });
  assert.deepEqual(past.json.log.stdout.lines, [], 'a page past the end is empty');

  const retried = await mcp.call('run_retry', { run, wait_s: 30 });
  assert.equal(retried.isError, false, JSON.stringify(retried.json));
  assert.equal(retried.json.retried_from, run);
  assert.notEqual(retried.json.summary.run, run);
  assert.match(retried.json.summary.run, /^run_/);
  assert.equal(retried.json.summary.outcome, 'PASS');
  assert.equal(retried.json.timed_out, false);
  const atOnce = await mcp.call('run_retry', { run });
  assert.notEqual(atOnce.json.summary.run, retried.json.summary.run);
  const settled = await mcp.call('run_wait', { run: atOnce.json.summary.run });
  assert.equal(settled.json.summary.outcome, 'PASS');

  const missing = await mcp.call('run_show', { run: 'run_nope' });
  assert.equal(missing.isError, true);
  assert.equal(missing.json.error.code, 'ERR_USAGE');
  const missingRetry = await mcp.call('run_retry', { run: 'run_nope' });
  assert.equal(missingRetry.json.error.code, 'ERR_USAGE');
  const missingCancel = await mcp.call('run_cancel', { run: 'run_nope' });
  assert.equal(missingCancel.json.error.code, 'ERR_USAGE');
});

test('gate: the vkit.gate/1 object, deep and narrowed', async () => {
  const g = await mcp.call('gate', {});
  assert.equal(g.json.schema, 'vkit.gate/1');
  assert.equal(g.json.status, 'READY');
  assert.deepEqual(
    g.json.items.map((i: any) => i.id),
    ['check:a', 'check:b'],
  );
  const deep = await mcp.call('gate', { deep: true, only: ['b'] });
  assert.equal(deep.json.status, 'READY');
  assert.deepEqual(
    deep.json.items.map((i: any) => i.id),
    ['check:b'],
  );
  const bad = await mcp.call('gate', { only: ['zzz'] });
  assert.equal(bad.json.error.code, 'ERR_USAGE');
});

test('model_compare: an object and the same JSON as a string agree; a duplicate key in text is ERR_REQUEST_INVALID with every issue', async () => {
  const request = compareRequestObject();
  const byObject = await mcp.call('model_compare', { request });
  assert.equal(byObject.isError, false, JSON.stringify(byObject.json));
  assert.equal(byObject.json.schema, 'vkit.model-compare/1');
  assert.equal(byObject.json.result, 'different');
  const byText = await mcp.call('model_compare', { request: JSON.stringify(request, null, 2) });
  assert.deepEqual(byText.json, byObject.json);

  // The duplicate-key and integer-form checks exist only for text.
  const dupText = JSON.stringify(request)
    .replace('"schema_version":1', '"schema_version":1,"schema_version":1')
    .replace('"max_contexts"', '"max_contexts"');
  const withFloat = dupText.replace(/}$/, ',"max_contexts":1.0e3}');
  const dup = await mcp.call('model_compare', { request: withFloat });
  assert.equal(dup.isError, true);
  assert.equal(dup.json.error.code, 'ERR_REQUEST_INVALID');
  assert.equal(dup.json.error.exit_code, 2);
  assert.equal(dup.json.error.issues.length, 2, JSON.stringify(dup.json.error.issues));
  assert.match(dup.json.error.issues[0].message, /duplicate/i);
  assert.equal(dup.json.error.issues[1].path, '$.max_contexts');

  const badObject = await mcp.call('model_compare', { request: { schema_version: 2, before: {}, extra: true } });
  assert.equal(badObject.isError, true);
  assert.equal(badObject.json.error.code, 'ERR_REQUEST_INVALID');
  assert.ok(badObject.json.error.issues.length >= 3, 'every issue, not just the first');
  const notJson = await mcp.call('model_compare', { request: '{"schema_version": 1,' });
  assert.equal(notJson.json.error.code, 'ERR_REQUEST_INVALID');
  assert.equal(notJson.json.error.issues[0].line, 1);

  const array = await rejected(
    mcp.client.callTool({ name: 'model_compare', arguments: { request: [request] } }),
    'array',
  );
  assert.equal(array.code, -32602, 'an array is neither the object nor its text');
  assert.equal(array.data.error.issues[0].path, 'request');
});

test('feedback_add writes once, a duplicate keeps the file; feedback_list puts formal first', async () => {
  const req = {
    task: 'prove the parser total',
    missing: 'a Coq backend for parsers',
    benefit: 'totality for every input',
  };
  const first = await mcp.call('feedback_add', { ...req, kind: 'reliable' });
  assert.equal(first.isError, false, JSON.stringify(first.json));
  assert.equal(first.json.schema, 'vkit.feedback-add/1');
  assert.equal(first.json.created, true);
  assert.ok(existsSync(first.json.file));
  assert.ok(first.json.file.startsWith(`${repo.dir}/.git/vkit/feedback/`), first.json.file);
  const dup = await mcp.call('feedback_add', { ...req, kind: 'reliable', task: '  prove the   parser total ' });
  assert.equal(dup.json.created, false);
  assert.equal(dup.json.file, first.json.file);
  const formal = await mcp.call('feedback_add', { ...req, run: 'run_abc123' });
  assert.equal(formal.json.kind, 'formal');
  assert.equal(formal.json.created, true);

  const list = await mcp.call('feedback_list', {});
  assert.equal(list.json.schema, 'vkit.feedback-list/1');
  assert.equal(list.json.total, 2);
  assert.deepEqual(
    list.json.items.map((i: any) => i.kind),
    ['formal', 'reliable'],
  );
  assert.equal(list.json.items[0].run, 'run_abc123');
  assert.equal((await mcp.call('feedback_list', { limit: 1 })).json.items.length, 1);

  const empty = await mcp.call('feedback_add', { task: ' ', missing: 'x', benefit: 'y' });
  assert.equal(empty.isError, true);
  assert.equal(empty.json.error.code.startsWith('ERR_'), true);
  assert.equal(empty.json.error.exit_code, 2);
  assert.equal(empty.json.error.issues[0].path, 'task');
});

test("arguments outside a schema are JSON-RPC errors -32602 naming the argument, with vkit's error as data; the server keeps serving", async () => {
  for (const [name, args, path] of [
    ['build', { wait_s: 10, bogus: true }, 'bogus'],
    ['build', { wait_s: 51 }, 'wait_s'],
    ['verify', {}, ''],
    ['run_show', { run: 'run_x', sections: ['everything'] }, 'sections[0]'],
    ['run_show', { run: 'run_x', page: 0 }, 'page'],
    ['runs_list', { limit: 501 }, 'limit'],
    ['feedback_add', { task: 't', missing: 'm', benefit: 'b', kind: 'informal' }, 'kind'],
    ['gate', { deep: 'yes' }, 'deep'],
  ] as const) {
    const shown = `${name} ${JSON.stringify(args)}`;
    const error = await rejected(mcp.client.callTool({ name, arguments: args }), shown);
    assert.equal(error.code, -32602, shown);
    assert.match(
      error.message,
      new RegExp(`Invalid params for tool \`${name}\`: \`${(path || 'arguments').replace(/[[\]]/g, '\\$&')}\``),
      shown,
    );
    assert.equal(error.data.error.code, 'ERR_TOOL_INPUT', shown);
    assert.equal(error.data.error.exit_code, 2, shown);
    assert.ok(error.data.error.issues.length >= 1, shown);
    assert.equal(error.data.error.issues[0].path, path, shown);
    assert.match(error.data.error.hint, new RegExp(`input schema of \`${name}\``), shown);
  }
  const unknownTool = await rejected(mcp.client.callTool({ name: 'no_such_tool', arguments: {} }), 'no_such_tool');
  assert.equal(unknownTool.code, -32602);
  assert.equal(unknownTool.data.error.code, 'ERR_USAGE');
  assert.match(unknownTool.message, /not found/);
  assert.equal((await mcp.call('gate', {})).json.status, 'READY', 'still serving');
});

/** The JSON-RPC error a call was answered with (the client throws it as an McpError). */
async function rejected(call: Promise<unknown>, shown: string): Promise<{ code: number; message: string; data: any }> {
  try {
    await call;
  } catch (error) {
    return error as { code: number; message: string; data: any };
  }
  assert.fail(`${shown} was answered, not refused`);
}
