/**
 * `npm run setup:podman [-- SOCKET_PATH]`: starts podman's Docker-compatible API service on a unix
 * socket (what dockerode talks to), unless an engine already answers there, and waits until it
 * answers. Idempotent: run it as often as you like.
 *
 * SOCKET_PATH defaults to the path of $VKIT_CONTAINER_SOCKET (unix://PATH), else /tmp/podman.sock.
 * The service runs detached (--time=0: it never exits on idle); its log is SOCKET_PATH.log.
 * Exit status: 0 when an engine answers, 1 when the started service does not answer within 10 s,
 * 2 when podman or curl is missing.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { $, sleep, which } from 'zx';

const sock = (process.argv[2] || process.env.VKIT_CONTAINER_SOCKET || 'unix:///tmp/podman.sock').replace(
  /^unix:\/\//,
  '',
);

function isSocket(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}

/** GET /_ping answers "OK" from a live engine; a stale socket file refuses the connection. */
async function answers(): Promise<boolean> {
  if (!isSocket(sock)) return false;
  const ping = await $`curl -s --max-time 2 --unix-socket ${sock} http://d/_ping`.nothrow();
  return ping.stdout === 'OK';
}

function fail(message: string, code: number): never {
  process.stderr.write(`podman-service: ${message}\n`);
  process.exit(code);
}

if (await answers()) {
  console.log(`podman-service: an engine answers on unix://${sock}`);
  process.exit(0);
}
if (!(await which('podman', { nothrow: true }))) fail('podman missing: run `npm run setup:system`', 2);
if (!(await which('curl', { nothrow: true }))) fail('curl missing (used to probe the socket)', 2);

// A socket file nobody answers on is left by a service that died; podman would refuse to bind it.
if (isSocket(sock)) rmSync(sock, { force: true });
mkdirSync(dirname(sock), { recursive: true });
// Detached: its own session (setsid), ignoring hangups (nohup execs podman, so the pid is podman's).
// Started in `/`: it outlives this checkout, and a service whose directory was deleted starts no
// container (conmon: "Failed to get working directory"; the engine answers HTTP 500).
const log = openSync(`${sock}.log`, 'w');
const service = spawn('nohup', ['podman', 'system', 'service', '--time=0', `unix://${sock}`], {
  cwd: '/',
  detached: true,
  stdio: ['ignore', log, log],
});
closeSync(log);
service.unref();

for (let i = 0; i < 100; i++) {
  if (await answers()) {
    console.log(`podman-service: started on unix://${sock} (pid ${service.pid})`);
    process.exit(0);
  }
  await sleep(100);
}
fail(`no answer on unix://${sock} after 10 s; see ${sock}.log`, 1);
