/**
 * Pipelined small reads against a real TCP server that speaks HTTP/1.1 byte by byte as the test
 * writes it: bodies by length, chunked (extensions, trailers) and none (HEAD, 204); a server that
 * closes between answers, with or without saying so; a body over the limit; an answer cut short.
 */
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { PipelinedReads } from '../../src/remote/pipelined.js';

interface Seen {
  method: string;
  path: string;
  /** Requests this connection had received, this one included. */
  n: number;
}

/**
 * A server handing each request (parsed from the bytes as they came) to `answer`, which returns
 * the bytes to write back, or 'close' to close the connection instead. Counts connections and the
 * chunks requests arrived in.
 */
async function rawServer(answer: (req: Seen, socket: Socket) => string | 'close' | undefined) {
  const stats = { connections: 0, chunks: 0, requests: 0 };
  const open = new Set<Socket>();
  const server = createServer((socket) => {
    stats.connections++;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    let buf = '';
    let n = 0;
    socket.on('data', (chunk) => {
      stats.chunks++;
      buf += chunk.toString('latin1');
      for (let end = buf.indexOf('\r\n\r\n'); end >= 0; end = buf.indexOf('\r\n\r\n')) {
        const [method, path] = buf.slice(0, end).split(' ');
        buf = buf.slice(end + 4);
        stats.requests++;
        const out = answer({ method: method!, path: path!, n: ++n }, socket);
        if (out === 'close') {
          socket.end();
          return;
        }
        if (out !== undefined) socket.write(out, 'latin1');
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    stats,
    reads: (o: { connections?: number; depth?: number; timeoutMs?: number } = {}) =>
      new PipelinedReads(
        { host: '127.0.0.1', port, tls: false, authority: `127.0.0.1:${port}` },
        { connections: o.connections ?? 2, depth: o.depth ?? 8, timeoutMs: o.timeoutMs ?? 2000 },
      ),
    close: () =>
      new Promise((r) => {
        server.close(r);
        for (const socket of open) socket.destroy();
      }),
  };
}

const ok = (body: string, extra = '') => `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n${extra}\r\n${body}`;
const chunked = (parts: string[]) =>
  `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${parts.map((p) => `${p.length.toString(16)};x=y\r\n${p}\r\n`).join('')}0\r\nX-Trailer: t\r\n\r\n`;

test('answers of every framing come back to their own requests, pipelined on one connection', async () => {
  const s = await rawServer(({ method, path }) => {
    const name = path.slice(1);
    if (method === 'HEAD') return 'HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n';
    if (name.startsWith('chunked')) return chunked([name, '-', 'x'.repeat(300)]);
    if (name.startsWith('none')) return 'HTTP/1.1 204 No Content\r\n\r\n';
    if (name.startsWith('missing')) return 'HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n';
    return ok(`body of ${name}`);
  });
  try {
    const reads = s.reads({ connections: 1, depth: 16 });
    const names = Array.from({ length: 40 }, (_, i) => ['plain', 'chunked', 'none', 'missing'][i % 4] + i);
    const got = await Promise.all([
      ...names.map((n) => reads.ask('GET', `/${n}`, 1 << 20)),
      reads.ask('HEAD', '/head', 0),
    ]);
    names.forEach((n, i) => {
      const a = got[i]!;
      if (n.startsWith('plain')) assert.deepEqual([a.status, a.body.toString()], [200, `body of ${n}`]);
      if (n.startsWith('chunked')) assert.deepEqual([a.status, a.body.toString()], [200, `${n}-${'x'.repeat(300)}`]);
      if (n.startsWith('none')) assert.deepEqual([a.status, a.body.length], [204, 0]);
      if (n.startsWith('missing')) assert.deepEqual([a.status, a.body.length], [404, 0]);
    });
    assert.deepEqual([got[40]!.status, got[40]!.body.length], [200, 0], 'a HEAD answer has no body');
    assert.equal(s.stats.connections, 1);
    // One request alone until the connection answered; then the rest together, not one write each.
    assert.ok(s.stats.chunks <= 6, `41 requests arrived in ${s.stats.chunks} chunks`);
  } finally {
    await s.close();
  }
});

test('a server that closes between answers, saying so or not: what was sent behind is asked again', async () => {
  for (const say of [true, false]) {
    const s = await rawServer(({ path, n }) => {
      if (n === 4) return say ? undefined : 'close';
      const body = ok(path, n === 3 && say ? 'Connection: close\r\n' : '');
      return n === 3 && say ? `${body}` : body;
    });
    try {
      const reads = s.reads({ connections: 2, depth: 8 });
      const paths = Array.from({ length: 30 }, (_, i) => `/p${i}`);
      const got = await Promise.all(paths.map((p) => reads.ask('GET', p, 1024)));
      assert.deepEqual(
        got.map((a) => a.body.toString()),
        paths,
        say ? 'Connection: close' : 'silent close',
      );
      assert.ok(s.stats.connections >= 10, `${s.stats.connections} connections for 30 requests, 3 each`);
    } finally {
      await s.close();
    }
  }
});

test('a body over the limit is answered as too large; the requests behind it are still answered', async () => {
  const s = await rawServer(({ path }) =>
    path === '/big'
      ? ok('x'.repeat(5000))
      : path === '/bigchunked'
        ? chunked(['y'.repeat(3000), 'z'.repeat(3000)])
        : ok(path),
  );
  try {
    const reads = s.reads({ connections: 1, depth: 8 });
    await reads.ask('GET', '/warm', 1024); // the connection pipelines from here on
    const got = await Promise.all(['/a', '/big', '/b', '/bigchunked', '/c'].map((p) => reads.ask('GET', p, 4096)));
    assert.deepEqual(
      got.map((a) => (a.tooLarge ? 'too large' : a.body.toString())),
      ['/a', 'too large', '/b', 'too large', '/c'],
    );
  } finally {
    await s.close();
  }
});

test('an answer cut short fails its own request only; one never answered times out', async () => {
  const s = await rawServer(({ path }, socket) => {
    if (path === '/cut') {
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part');
      return undefined;
    }
    if (path === '/hang') return undefined;
    return ok(path);
  });
  try {
    const reads = s.reads({ connections: 1, depth: 8, timeoutMs: 300 });
    await reads.ask('GET', '/warm', 1024);
    const settle = (p: Promise<{ body: Buffer }>) =>
      p.then(
        (a) => a.body.toString(),
        (e: Error) => `failed: ${e.constructor.name} ${e.message}`,
      );
    const got = await Promise.all(['/a', '/cut', '/b'].map((p) => settle(reads.ask('GET', p, 4096))));
    assert.equal(got[0], '/a');
    assert.match(got[1]!, /^failed: Error the answer was cut short/);
    assert.equal(got[2], '/b', 'asked again on a new connection');
    const t0 = performance.now();
    assert.match(await settle(reads.ask('GET', '/hang', 4096)), /^failed: Timeout/);
    assert.ok(performance.now() - t0 < 1500);
  } finally {
    await s.close();
  }
});
