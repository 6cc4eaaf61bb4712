/**
 * A real `nats-server -js` (Debian's) on a free loopback port, with its own storage directory, for
 * the fleet tests; and `vkit worker` processes started in directories of their own. A loud skip
 * naming `apt-get install nats-server` (or `npm run setup:system`) when it is missing; a failure
 * instead under VKIT_REQUIRE_SYSTEM=1.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { freePort } from './nginx.js';
import { VKIT_BIN } from './repo.js';

const NATS_SERVER = '/usr/sbin/nats-server';

export function natsSkip(): { skip: string | false } {
  const present = spawnSync(NATS_SERVER, ['--version']).status === 0;
  if (present || process.env.VKIT_REQUIRE_SYSTEM === '1') return { skip: false };
  const reason =
    'nats-server is not installed: run `apt-get install nats-server` (or `npm run setup:system`; VKIT_REQUIRE_SYSTEM=1 turns this skip into a failure)';
  process.stderr.write(`SKIP fleet tests: ${reason}\n`);
  return { skip: reason };
}

export interface NatsServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Resolves once `port` accepts a connection, or rejects after `ms`. */
async function listening(port: number, child: ChildProcess, log: () => string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (child.exitCode !== null || Date.now() > until) throw new Error(`nats-server did not start: ${log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts `nats-server -js` on a free loopback port with a storage directory of its own. */
export async function startNats(): Promise<NatsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-nats-'));
  const port = await freePort();
  const child = spawn(NATS_SERVER, ['-js', '-sd', join(dir, 'jetstream'), '-a', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr!.on('data', (d) => (log += d));
  await listening(port, child, () => log);
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface FleetWorker {
  child: ChildProcess;
  dir: string;
  /** Everything the worker wrote on stderr so far. */
  log(): string;
  /** Resolves when its log contains `text`. */
  waitFor(text: string | RegExp, ms?: number): Promise<void>;
  stop(): Promise<void>;
}

/** `vkit worker` in a directory of its own (its store and scratch space), signing with `key`. */
export async function startWorker(
  nats: string,
  remote: string,
  key: string,
  args: string[] = [],
): Promise<FleetWorker> {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-worker-'));
  const child = spawn(process.execPath, [VKIT_BIN, 'worker', '--connect', nats, '--remote', remote, ...args], {
    cwd: dir,
    env: { ...process.env, VKIT_SIGNING_KEY: key, VKIT_DAEMON: '0', NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (text += d));
  const worker: FleetWorker = {
    child,
    dir,
    log: () => text,
    async waitFor(what, ms = 20_000) {
      const until = Date.now() + ms;
      const seen = () => (typeof what === 'string' ? text.includes(what) : what.test(text));
      while (!seen()) {
        if (child.exitCode !== null || child.signalCode !== null || Date.now() > until)
          throw new Error(`the worker never said ${String(what)}: ${text}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await worker.waitFor('pulling');
  return worker;
}
