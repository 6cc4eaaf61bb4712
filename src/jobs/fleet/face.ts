/**
 * The NATS executor (docs/fleet.md): the face's side of a fleet. Each run this service queues is
 * published once, as one JetStream message, to the stream's work queue, its inputs uploaded to the
 * remote cache's CAS first. A worker claims the run (the face starts the attempt, owned by this
 * process, and answers its id), beats every second, and hands in a signed result, accepted only as
 * accept-result.ts says. The local store stays the record, and `wait` reads only it:
 * - a worker unheard of for the ack deadline is lost: its attempt ends `interrupted` (`worker lost`);
 * - a claim of a run that is not queued any more (a duplicate delivery, a run cancelled or already
 *   claimed) is refused, so one run has one attempt and the attempt id decides;
 * - NATS unreachable when a run is published: the run ends BLOCKED saying so, or with
 *   `fallback: 'local'` runs on this machine's workers instead.
 */
import type { Msg, Subscription } from '@nats-io/transport-node';
import { hostname } from 'node:os';
import type { ExecutorConfig } from '../../config/executor.js';
import type { RemoteSource } from '../../remote/exchange.js';
import { currentOwner } from '../../store/liveness.js';
import { newId, type RunRow } from '../../store/store.js';
import type { Executor, ExecutorHost } from '../executor.js';
import type { LocalExecutor } from '../local-executor.js';
import { frozenJobOf } from '../worker.js';
import { acceptResult } from './accept-result.js';
import { uploadInputs } from './inputs.js';
import { connectNats, ensureStream, type Nats } from './nats.js';
import {
  ACK_WAIT_MS,
  cancelSubject,
  type ClaimReply,
  DEFAULT_STREAM,
  encode,
  type JobMessage,
  jobSubject,
  readBeat,
  readClaim,
  readResult,
  type ResultReply,
  type WorkerInfo,
} from './protocol.js';

export interface NatsExecutorOptions {
  config: Extract<ExecutorConfig, { kind: 'nats' }>;
  /** The remote cache inputs and results travel through, and the keys whose results count. */
  remote: RemoteSource;
  /** This machine's executor, for `fallback: 'local'`. */
  local: () => LocalExecutor;
  /** A line for the user (stderr). */
  warn(line: string): void;
}

/** An attempt running on a worker: its run, when the worker was last heard, and who it is. */
interface InFlight {
  run: string;
  heard: number;
  worker: WorkerInfo;
  /** Its result is being verified: the deadline no longer applies. */
  settling?: boolean;
}

/** How often the face looks for attempts past their deadline. */
const LOSS_CHECK_MS = 250;

export class NatsExecutor implements Executor {
  readonly kind = 'nats' as const;
  private readonly stream: string;
  /** This face's subject prefix: workers claim, beat and hand in results there. */
  readonly face: string;
  private connecting?: Promise<Nats | { problem: string }>;
  private readonly published = new Set<string>();
  readonly inflight = new Map<string, InFlight>();
  private fallback?: LocalExecutor;
  private readonly subs: Subscription[] = [];
  private lossTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly host: ExecutorHost,
    private readonly opts: NatsExecutorOptions,
  ) {
    this.stream = opts.config.stream ?? DEFAULT_STREAM;
    this.face = `vkit.face.${newId('face', host.store.now())}`;
  }

  dispatch(): void {
    const { host } = this;
    if (host.closed || host.failed) return;
    if (this.fallback) return this.fallback.dispatch();
    for (const queue of host.queues.keys())
      for (const run of host.store.lifecycle.queuedRuns(queue)) {
        if (this.published.has(run.id)) continue;
        this.published.add(run.id);
        void this.publish(run).catch((error) => host.fail(error));
      }
  }

  /** Another face's run is not this fleet face's to take over: it waits for its own face. */
  adopt(): boolean {
    return false;
  }

  nudgeCancel(run: string, attempt: { id: string }): void {
    if (this.fallback && !this.inflight.has(attempt.id)) return this.fallback.nudgeCancel(run, attempt as never);
    void this.connection().then((nats) => {
      if (!('problem' in nats)) nats.nc.publish(cancelSubject(attempt.id), encode({ run, attempt: attempt.id }));
    });
  }

  async forceStop(attempt: { id: string; child_pgid: number | null }): Promise<void> {
    // A worker's processes are its own to stop; the attempt ends here, and its late result is refused.
    if (this.inflight.delete(attempt.id)) return;
    await this.fallback?.forceStop(attempt);
  }

  close(): void {
    this.closed = true;
    this.fallback?.close();
    if (this.lossTimer) clearInterval(this.lossTimer);
    for (const sub of this.subs) sub.unsubscribe();
    void this.connecting?.then((nats) => ('problem' in nats ? undefined : nats.nc.close())).catch(() => undefined);
  }

  /** The connection, made once, with this face's subjects listened to and the loss check running. */
  private connection(): Promise<Nats | { problem: string }> {
    this.connecting ??= (async () => {
      const nats = await connectNats(this.opts.config.url, `vkit face ${hostname()} ${process.pid}`);
      if ('problem' in nats) return nats;
      try {
        await ensureStream(nats, this.stream);
      } catch (error) {
        await nats.nc.close().catch(() => undefined);
        return { problem: `the JetStream stream ${this.stream} is unavailable: ${(error as Error).message}` };
      }
      this.listen(nats);
      return nats;
    })();
    return this.connecting;
  }

  private listen(nats: Nats): void {
    const on = (what: string, handle: (msg: Msg) => unknown) => {
      const sub = nats.nc.subscribe(`${this.face}.${what}`, {
        callback: (error, msg) => {
          if (!error) void Promise.resolve(handle(msg)).catch((e) => this.host.fail(e));
        },
      });
      this.subs.push(sub);
    };
    on('claim', (msg) => msg.respond(encode(this.claim(msg.data))));
    on('beat', (msg) => this.beat(nats, msg.data));
    on('result', async (msg) => msg.respond(encode(await this.result(msg.data))));
    this.lossTimer = setInterval(() => this.checkLosses(), LOSS_CHECK_MS);
    this.lossTimer.unref();
  }

  /** Publishes one queued run: inputs to the CAS, then the message (its id the run's: published once). */
  private async publish(run: RunRow): Promise<void> {
    const nats = await this.connection();
    if ('problem' in nats) return this.unreachable(run, nats.problem);
    const { job, root } = frozenJobOf(this.host.store, run);
    const inputs = await uploadInputs(root, job, this.opts.remote.cache);
    if (typeof inputs === 'string') return this.abandon(run.id, inputs);
    const message: JobMessage = { schema: 'vkit.fleet.job/1', run: run.id, face: this.face, job, inputs };
    try {
      await nats.js.publish(jobSubject(this.stream), encode(message), { msgID: run.id });
    } catch (error) {
      return this.unreachable(run, `publishing to ${this.opts.config.url} failed: ${(error as Error).message}`);
    }
  }

  /** NATS cannot take the run: this machine runs it (`fallback: 'local'`), or it ends BLOCKED saying why. */
  private unreachable(run: RunRow, problem: string): void {
    if (this.opts.config.fallback === 'local' && !this.closed) {
      if (!this.fallback) {
        this.opts.warn(`${problem}; running jobs on this machine (executor fallback: 'local')`);
        this.fallback = this.opts.local();
      }
      this.fallback.dispatch();
      return;
    }
    this.abandon(
      run.id,
      `${problem} (the NATS executor has no fallback: set \`fallback: 'local'\` to run here instead)`,
    );
  }

  private abandon(run: string, reason: string): void {
    this.host.store.lifecycle.abandonQueued(run, reason);
    this.host.wake(run);
  }

  /** A worker asks for a run: it gets a new attempt only while the run is this face's and queued. */
  private claim(data: Uint8Array): ClaimReply {
    const req = readClaim(data);
    if (!req) return { ok: false, reason: 'not a vkit.fleet.claim/1 request' };
    if (!this.published.has(req.run)) return { ok: false, reason: `run ${req.run} is not this face's` };
    let attempt: string;
    try {
      // The attempt is owned by this face: if the face dies, recovery ends it (its heartbeat stale,
      // its owner gone); while the face lives, the worker's beats keep it fresh.
      attempt = this.host.store.lifecycle.startAttempt(req.run, currentOwner());
    } catch {
      return { ok: false, reason: `run ${req.run} is not queued any more (cancelled, ended or claimed already)` };
    }
    this.inflight.set(attempt, { run: req.run, heard: Date.now(), worker: req.worker });
    return { ok: true, attempt };
  }

  private beat(nats: Nats, data: Uint8Array): void {
    const attempt = readBeat(data);
    const entry = attempt ? this.inflight.get(attempt) : undefined;
    if (!attempt || !entry) return;
    entry.heard = Date.now();
    this.host.store.lifecycle.heartbeat(attempt);
    // A cancellation published before the worker listened for it (right after its claim) is not
    // lost: while the flag is set, each beat is answered with it again.
    if (this.host.store.lifecycle.cancelRequested(attempt))
      nats.nc.publish(cancelSubject(attempt), encode({ run: entry.run, attempt }));
  }

  private async result(data: Uint8Array): Promise<ResultReply> {
    const req = readResult(data);
    if (!req) return { recorded: false, reason: 'not a vkit.fleet.result/1 request' };
    const entry = this.inflight.get(req.attempt);
    // A late result (its attempt declared lost or cancelled) or another run's: nothing is written.
    if (!entry || entry.run !== req.run || entry.settling)
      return { recorded: false, reason: `attempt ${req.attempt} is not running for this face any more` };
    entry.settling = true;
    try {
      const run = this.host.store.lifecycle.getRun(req.run);
      if (!run) return { recorded: false, reason: `run ${req.run} is gone from the store` };
      return await acceptResult(this.host.store, this.opts.remote, run, req);
    } finally {
      this.inflight.delete(req.attempt);
      this.host.wake(req.run);
    }
  }

  /** Attempts whose worker went quiet for the ack deadline end interrupted: never a pass. */
  private checkLosses(): void {
    const now = Date.now();
    for (const [attempt, entry] of this.inflight) {
      if (entry.settling || now - entry.heard <= ACK_WAIT_MS) continue;
      this.inflight.delete(attempt);
      try {
        this.host.store.lifecycle.finishAttempt({
          run: entry.run,
          attempt,
          state: 'interrupted',
          outcome: 'BLOCKED',
          reason: 'worker lost',
        });
      } catch (error) {
        this.host.fail(error);
      }
      this.host.wake(entry.run);
    }
  }
}
