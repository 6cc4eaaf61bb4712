/**
 * The remote client against a real local HTTP server that misbehaves: at most `connections`
 * connections, each pipelining only once it has answered, and a server that failed every attempt
 * of one request is not asked again for a while, so a dead server costs a build one timeout round,
 * not one per action.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RemoteCache } from '../../src/remote/http.js';
import { serveHttp } from '../_support/nginx.js';

test('a hanging server costs one timeout round for forty entries, then is not asked', async () => {
  let asked = 0;
  const s = await serveHttp(() => void asked++); // never answers
  try {
    const cache = new RemoteCache({ url: s.url, timeoutMs: 200, retries: 1, connections: 2 });
    const t0 = performance.now();
    const got = await Promise.all(Array.from({ length: 40 }, (_, i) => cache.getAction(`${i}`.padStart(64, '0'))));
    const ms = performance.now() - t0;
    // Without the breaker: 20 rounds of two attempts of 200 ms (8 s and more).
    assert.ok(ms < 2000, `took ${ms} ms`);
    assert.ok(got.every((g) => !g.ok && !g.missing));
    assert.ok(asked <= 4, `the server was asked ${asked} times`);
    const skipped = got.filter((g) => !g.ok && /not asked, the server failed within the last minute/.test(g.reason));
    assert.ok(skipped.length >= 36, `${skipped.length} skipped`);
  } finally {
    s.close();
  }
});

test('at most `connections` connections, each pipelining at most `pipelining` requests once it answered', async () => {
  let inFlight = 0;
  let most = 0;
  const sockets = new Set<unknown>();
  const s = await serveHttp((req, res) => {
    sockets.add(req.socket);
    most = Math.max(most, ++inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(404).end();
    }, 20);
  });
  try {
    const cache = new RemoteCache({ url: s.url, connections: 3, pipelining: 4 });
    const got = await Promise.all(Array.from({ length: 30 }, (_, i) => cache.getAction(`${i}`.padStart(64, '0'))));
    assert.ok(
      got.every((g) => !g.ok && g.missing),
      'a 404 is a plain miss',
    );
    assert.ok(sockets.size <= 3, `${sockets.size} connections`);
    assert.ok(most <= 12, `${most} requests unanswered at once`);
    assert.ok(most > 3, `${most} requests unanswered at once: no pipelining`);
  } finally {
    s.close();
  }
});

test('a URL that is not http(s) or that carries credentials makes every request a miss saying why', async () => {
  let asked = 0;
  const s = await serveHttp((_req, res) => {
    asked++;
    res.writeHead(404).end();
  });
  try {
    const withPassword = s.url.replace('http://', 'http://ci:secret@');
    const cases: [string, RegExp][] = [
      [withPassword, /carries a user name or password/],
      [s.url.replace('http://', 'ftp://'), /is not an http:\/\/ or https:\/\/ URL/],
      ['not a url', /is not an http:\/\/ or https:\/\/ URL/],
    ];
    for (const [url, why] of cases) {
      const got = await new RemoteCache({ url, retries: 0 }).getAction('0'.repeat(64));
      assert.ok(!got.ok && !got.missing, url);
      assert.match(got.ok ? '' : got.reason, why);
    }
    assert.equal(asked, 0, 'the server was never asked');
    // The same server without the credentials answers (a 404 is a plain miss).
    const plain = await new RemoteCache({ url: s.url }).getAction('0'.repeat(64));
    assert.ok(!plain.ok && plain.missing);
  } finally {
    s.close();
  }
});

test('requests go below the path of the remote URL, for an action entry and for a blob', async () => {
  const paths: string[] = [];
  const s = await serveHttp((req, res) => {
    paths.push(`${req.method} ${req.url}`);
    res.writeHead(404).end();
  });
  try {
    const cache = new RemoteCache({ url: `${s.url}/team/cache/`, retries: 0 });
    await cache.getAction('a'.repeat(64));
    await cache.hasBlob(`sha256:${'b'.repeat(64)}`);
    assert.deepEqual(paths, [`GET /team/cache/ac/${'a'.repeat(64)}`, `HEAD /team/cache/cas/${'b'.repeat(64)}`]);
  } finally {
    s.close();
  }
});
