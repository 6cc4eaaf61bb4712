/**
 * A real nginx (Debian's, with its WebDAV module) serving the HTTP remote-cache protocol on a
 * loopback port from a temp directory: PUT stores a file (create_full_put_path), GET and HEAD read
 * it. Started per test file, stopped after. A loud skip naming `npm run setup:system` when nginx is
 * missing; a failure instead under VKIT_REQUIRE_SYSTEM=1.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const NGINX = '/usr/sbin/nginx';

export function nginxSkip(): { skip: string | false } {
  const present = spawnSync(NGINX, ['-v']).status === 0;
  if (present || process.env.VKIT_REQUIRE_SYSTEM === '1') return { skip: false };
  const reason =
    'nginx is not installed: run `npm run setup:system` (VKIT_REQUIRE_SYSTEM=1 turns this skip into a failure)';
  process.stderr.write(`SKIP remote cache tests: ${reason}\n`);
  return { skip: reason };
}

/** A free loopback port (taken by nobody when this returns, barring a race nginx would report). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A loopback HTTP server answering every request with `handle` (a server that misbehaves on purpose). */
export async function serveHttp(
  handle: Parameters<typeof createHttpServer>[1],
): Promise<{ url: string; close(): void }> {
  const port = await freePort();
  const s = createHttpServer(handle);
  await new Promise<void>((r) => s.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      s.closeAllConnections();
      s.close();
    },
  };
}

export interface Nginx {
  url: string;
  /** Where PUT bodies land: `<data>/cas/<hex>`, `<data>/ac/<hex>`. */
  data: string;
  stop(): Promise<void>;
}

export async function startNginx(): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-nginx-'));
  const data = join(dir, 'data');
  for (const d of [data, join(dir, 'tmp'), join(dir, 'logs')]) mkdirSync(d, { recursive: true });
  // Workers may run as another user than the master: they write the data and temp directories.
  for (const d of [dir, data, join(dir, 'tmp')]) chmodSync(d, 0o777);
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log;
daemon off;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:${port};
    location / {
      root ${data};
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw group:rw all:rw;
    }
  }
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', conf, '-e', `${dir}/logs/error.log`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      const res = await fetch(`${url}/cas/${'0'.repeat(64)}`, { method: 'HEAD' });
      if (res.status === 404) break;
    } catch {}
    if (child.exitCode !== null || i > 100) throw new Error(`nginx did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    data,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
