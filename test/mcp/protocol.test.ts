/**
 * JSON-RPC errors a raw client gets from `vkit mcp`, bytes written by hand to its stdin: a line that
 * is not JSON gets -32700, JSON that is not a JSON-RPC message -32600, a tools/call whose `arguments`
 * is not an object or does not fit the tool's schema -32602 naming the argument; and the server keeps
 * serving after each.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { storeDir } from '../_support/evidence.js';
import { childEnv } from '../_support/mcp-client.js';
import { nodeCheck, tempRepo, VKIT_BIN } from '../_support/repo.js';

/** A raw `vkit mcp`: write lines, read every message it sends back, in order. */
function rawServer(dir: string, store: string) {
  const child = spawn(process.execPath, [VKIT_BIN, 'mcp', '--root', dir, '--store', store], {
    cwd: dir,
    env: childEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const messages: any[] = [];
  const waiters: (() => void)[] = [];
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
    const lines = stdout.split('\n');
    stdout = lines.pop()!;
    for (const line of lines) messages.push(JSON.parse(line));
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let read = 0;
  return {
    write: (bytes: string) => child.stdin.write(bytes),
    /** The next message the server sends. */
    next(): Promise<any> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no message from the server; stderr: ${stderr}`)), 30_000);
        const check = () => {
          if (read < messages.length) {
            clearTimeout(timer);
            resolve(messages[read++]);
          } else waiters.push(check);
        };
        check();
      });
    },
    stderr: () => stderr,
    async close() {
      child.stdin.end();
      return exited;
    },
  };
}

test('a malformed line gets -32700, a non-message -32600, and the server keeps serving', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.manifest({ checks: [{ id: 'a', run: nodeCheck("console.log('a')"), inputs: ['a.txt'] }] });
  const server = rawServer(repo.dir, storeDir(repo));
  try {
    const send = (msg: unknown) => server.write(`${JSON.stringify(msg)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    assert.equal((await server.next()).id, 1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });

    server.write('{"jsonrpc": "2.0", "id": 2, "method": "tools/list"\n');
    const parse = await server.next();
    assert.deepEqual(Object.keys(parse).sort(), ['error', 'id', 'jsonrpc']);
    assert.equal(parse.jsonrpc, '2.0');
    assert.equal(parse.id, null);
    assert.equal(parse.error.code, -32700, JSON.stringify(parse));
    assert.match(parse.error.message, /^Parse error/);

    server.write('not json at all\r\n');
    assert.equal((await server.next()).error.code, -32700);

    // A blank line is no message: nothing comes back for it (the next answer is the next request's).
    server.write('\n   \n');
    send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    assert.deepEqual(await server.next(), { jsonrpc: '2.0', id: 3, result: {} });

    send({ hello: 'world' });
    const notRpc = await server.next();
    assert.equal(notRpc.id, null);
    assert.equal(notRpc.error.code, -32600, JSON.stringify(notRpc));
    send([1, 2]);
    assert.equal((await server.next()).error.code, -32600);
    send({ jsonrpc: '2.0', id: 4, method: 7 });
    const badMethod = await server.next();
    assert.equal(badMethod.id, 4, 'the id is given back when it can be read');
    assert.equal(badMethod.error.code, -32600);

    send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'gate', arguments: {} } });
    const gate = await server.next();
    assert.equal(gate.id, 5);
    assert.equal(JSON.parse(gate.result.content[0].text).schema, 'vkit.gate/1', 'still serving');
    assert.equal(await server.close(), 0, server.stderr());
  } finally {
    await server.close();
    repo.cleanup();
  }
});

test('tools/call: arguments that are not an object, or that break the schema, get -32602 naming the argument', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.manifest({ checks: [{ id: 'a', run: nodeCheck("console.log('a')"), inputs: ['a.txt'] }] });
  const server = rawServer(repo.dir, storeDir(repo));
  try {
    let id = 10;
    const call = async (params: unknown) => {
      const sent = ++id;
      server.write(`${JSON.stringify({ jsonrpc: '2.0', id: sent, method: 'tools/call', params })}\n`);
      const reply = await server.next();
      assert.equal(reply.id, sent, JSON.stringify(reply));
      return reply;
    };
    server.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      })}\n`,
    );
    await server.next();

    for (const [args, shown] of [
      [5, /a number \(5\)/],
      ['wait_s', /a string/],
      [[1], /an array/],
      [null, /null/],
    ] as const) {
      const r = await call({ name: 'build', arguments: args });
      assert.equal(r.error?.code, -32602, JSON.stringify(r));
      assert.match(r.error.message, /`arguments`/, r.error.message);
      assert.match(r.error.message, shown, r.error.message);
      assert.doesNotMatch(r.error.message, /"code":|invalid_type|\[\s*\{/, 'no zod dump');
      assert.equal(r.error.data.error.code, 'ERR_TOOL_INPUT');
      assert.equal(r.error.data.error.exit_code, 2);
      assert.equal(r.error.data.error.issues[0].path, 'arguments');
    }

    for (const [name, args, path] of [
      ['gate', { deep: 'yes' }, 'deep'],
      ['build', { wait_s: 51 }, 'wait_s'],
      ['run_show', { run: 'run_x', sections: ['everything'] }, 'sections[0]'],
      ['evidence_export', { run: 'run_x', out: 'x.tar', overwrite: 'yes' }, 'overwrite'],
      ['build', { wait: 10 }, 'wait'],
    ] as const) {
      const r = await call({ name, arguments: args });
      const shown = `${name} ${JSON.stringify(args)}: ${JSON.stringify(r)}`;
      assert.equal(r.error?.code, -32602, shown);
      assert.match(r.error.message, new RegExp(`tool \`${name}\`: \`${path.replace(/[[\]]/g, '\\$&')}\``), shown);
      assert.equal(r.error.data.error.code, 'ERR_TOOL_INPUT', shown);
      assert.equal(r.error.data.error.issues[0].path, path, shown);
    }
    const unknownKey = await call({ name: 'build', arguments: { wait: 10 } });
    assert.match(unknownKey.error.message, /did you mean `wait_s`/);

    const noTool = await call({ name: 'bulid', arguments: {} });
    assert.equal(noTool.error.code, -32602);
    assert.match(noTool.error.message, /Tool `bulid` not found \(did you mean `build`\?\)/);
    assert.equal(noTool.error.data.error.code, 'ERR_USAGE');

    const served = await call({ name: 'gate' });
    assert.equal(JSON.parse(served.result.content[0].text).schema, 'vkit.gate/1', 'no arguments means {}');
  } finally {
    await server.close();
    repo.cleanup();
  }
});
