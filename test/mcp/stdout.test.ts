/**
 * Nothing but protocol on stdout: a raw `vkit mcp` process gets JSON-RPC lines by hand, runs a build
 * whose config prints to stdout while it loads, and every line it writes on stdout must parse as a
 * JSON-RPC message. Also: `--help`, a bad flag, and exiting when the client closes stdin.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { storeDir } from '../_support/evidence.js';
import { tempRepo, vkit, VKIT_BIN } from '../_support/repo.js';
import { childEnv } from '../_support/mcp-client.js';

const CONFIG = `import { defineConfig } from 'vkit';
console.log('noise from vkit.config.ts on stdout');
process.stdout.write('more noise\\n');
export default defineConfig({
  checks: [{ id: 'loud', run: ['node', '-e', "console.log('check output')"], inputs: ['a.txt'] }],
});
`;

test('every stdout line is JSON-RPC, even when the config prints while loading; stdin closing ends the server', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n', 'vkit.config.ts': CONFIG });
  const child = spawn(process.execPath, [VKIT_BIN, 'mcp', '--root', repo.dir, '--store', storeDir(repo)], {
    cwd: repo.dir,
    env: childEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  try {
    const responses = new Map<number, any>();
    const answered = (id: number) =>
      new Promise<any>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no response ${id}; stdout: ${stdout}\nstderr: ${stderr}`)),
          30_000,
        );
        const check = () => {
          if (responses.has(id)) {
            clearTimeout(timer);
            child.stdout.off('data', check);
            resolve(responses.get(id));
          }
        };
        child.stdout.on('data', check);
        check();
      });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
      for (const line of stdout.split('\n').slice(0, -1)) {
        const msg = JSON.parse(line);
        if (typeof msg.id === 'number') responses.set(msg.id, msg);
      }
    });
    const send = (msg: unknown) => child.stdin.write(`${JSON.stringify(msg)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    const init = await answered(1);
    assert.equal(init.result.serverInfo.name, 'vkit');
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'build', arguments: { wait_s: 30 } } });
    send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'verify', arguments: { check: 'loud', wait_s: 30 } },
    });
    const built = await answered(2);
    const verified = await answered(3);
    const report = JSON.parse(built.result.content[0].text);
    assert.equal(report.schema, 'vkit.build/1');
    assert.equal(report.gate.status, 'READY', JSON.stringify(report));
    assert.equal(JSON.parse(verified.result.content[0].text).action.outcome, 'PASS');

    child.stdin.end();
    assert.equal(await exited, 0, stderr);
    assert.ok(stdout.endsWith('\n'));
    const lines = stdout.split('\n').slice(0, -1);
    assert.equal(lines.length, 3, stdout);
    for (const line of lines) {
      const msg = JSON.parse(line);
      assert.equal(msg.jsonrpc, '2.0', line);
      assert.ok('result' in msg || 'error' in msg || 'method' in msg, line);
    }
    assert.doesNotMatch(stdout, /noise|check output/);
    assert.match(stderr, /noise from vkit\.config\.ts on stdout/, 'the config printed, on stderr');
    assert.match(stderr, /more noise/);
  } finally {
    child.kill();
    await exited;
    repo.cleanup();
  }
});

test('vkit mcp --help prints help; a bad flag exits 2 with nothing on stdout', () => {
  const help = vkit(['mcp', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: vkit mcp \[--root DIR\] \[--store DIR\]/);
  assert.match(vkit(['--help']).stdout, /\n {2}mcp +serve/);
  const bad = vkit(['mcp', '--bogus', '--json']);
  assert.equal(bad.code, 2);
  assert.equal(bad.stdout, '');
  assert.match(bad.stderr, /--bogus/);
});
