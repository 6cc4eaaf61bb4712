/**
 * `vkit worker --connect nats://HOST:PORT --remote URL`: a fleet worker (docs/fleet.md). It pulls
 * job messages from the stream's shared consumer, one per slot at a time; claims each run from its
 * face (refused: the message is dropped, nothing runs); fetches the inputs from the CAS into a
 * private scratch directory, each verified; runs the attempt exactly as a local worker does, in its
 * own store (the tool re-resolved and re-hashed, the key recomputed: a different identity is
 * BLOCKED); uploads the artifacts and its signed envelope; acknowledges the message only after that
 * upload; and hands the envelope's digest to the face. While it runs it beats every second: JetStream's
 * in-progress ack and a beat to the face. A cancellation for its attempt aborts only that attempt.
 */
import type { JsMsg } from '@nats-io/jetstream';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Rule } from '../../config/rule.js';
import { EXIT, VkitError } from '../../errors.js';
import { handInResult } from '../../remote/exchange.js';
import type { RemoteCache } from '../../remote/http.js';
import type { SigningKey } from '../../remote/keys.js';
import type { Store } from '../../store/store.js';
import { executeAttempt } from '../worker.js';
import { fetchInputs } from './inputs.js';
import { connectNats, ensureConsumer, ensureStream, type Nats } from './nats.js';
import {
  BEAT_MS,
  CONSUMER,
  cancelSubject,
  DEFAULT_STREAM,
  encode,
  type JobMessage,
  readClaimReply,
  readJobMessage,
  readResultReply,
  WORKERS_SUBJECT,
  type WorkerInfo,
} from './protocol.js';

export interface FleetWorkerOptions {
  url: string;
  stream?: string;
  cache: RemoteCache;
  signingKey: SigningKey;
  store: Store;
  /** Where each attempt's scratch directory is made (and removed after). */
  scratch: string;
  slots: number;
  labels: string[];
  rules: ReadonlyMap<string, Rule>;
  env: NodeJS.ProcessEnv;
  /** Aborted: stop pulling, cancel what runs, and return. */
  signal: AbortSignal;
  log(line: string): void;
}

/** How long one pull waits for a message before asking again. */
const PULL_MS = 2000;
/** How long a face has to answer a claim or a result. */
const ASK_MS = 5000;

export async function runFleetWorker(opts: FleetWorkerOptions): Promise<void> {
  const stream = opts.stream ?? DEFAULT_STREAM;
  const info: WorkerInfo = {
    id: `wkr_${randomBytes(6).toString('hex')}`,
    host: hostname(),
    labels: opts.labels,
    slots: opts.slots,
  };
  const nats = await connectNats(opts.url, `vkit worker ${info.id}@${info.host}`);
  if ('problem' in nats) throw new VkitError('ERR_FLEET_UNREACHABLE', EXIT.unavailable, nats.problem);
  try {
    await ensureStream(nats, stream);
    await ensureConsumer(nats, stream);
    const consumer = await nats.js.consumers.get(stream, CONSUMER);
    const running = new Set<string>();
    const presence = setInterval(
      () => nats.nc.publish(WORKERS_SUBJECT, encode({ ...info, attempts: [...running], at: Date.now() })),
      BEAT_MS,
    );
    opts.log(`vkit worker ${info.id} on ${info.host}: ${opts.slots} slot(s), pulling ${stream} from ${opts.url}`);
    try {
      await Promise.all(
        Array.from({ length: opts.slots }, async () => {
          while (!opts.signal.aborted) {
            const msg = await consumer.next({ expires: PULL_MS }).catch(() => null);
            if (msg) await serve(nats, msg, info, running, opts);
          }
        }),
      );
    } finally {
      clearInterval(presence);
    }
  } finally {
    await nats.nc.drain().catch(() => undefined);
  }
}

/** One message, from claim to acknowledgement. Never throws: a failure is logged and the message ends. */
async function serve(nats: Nats, msg: JsMsg, info: WorkerInfo, running: Set<string>, opts: FleetWorkerOptions) {
  const message = readJobMessage(msg.data);
  if (typeof message === 'string') {
    opts.log(`dropped a message: ${message}`);
    msg.term();
    return;
  }
  let attempt: string;
  try {
    const reply = readClaimReply(
      (
        await nats.nc.request(
          `${message.face}.claim`,
          encode({ schema: 'vkit.fleet.claim/1', run: message.run, worker: info }),
          {
            timeout: ASK_MS,
          },
        )
      ).data,
    );
    if (!reply.ok) {
      opts.log(`${message.run}: not claimed: ${reply.reason}`);
      msg.term();
      return;
    }
    attempt = reply.attempt;
  } catch (error) {
    // No face answers: it is gone, and nobody would record the result.
    opts.log(`${message.run}: its face did not answer the claim (${(error as Error).message}); dropped`);
    msg.term();
    return;
  }
  running.add(attempt);
  const cancel = new AbortController();
  const onStop = () => cancel.abort();
  opts.signal.addEventListener('abort', onStop, { once: true });
  const cancels = nats.nc.subscribe(cancelSubject(attempt), { callback: () => cancel.abort() });
  const beat = setInterval(() => {
    msg.working();
    nats.nc.publish(`${message.face}.beat`, encode({ attempt }));
  }, BEAT_MS);
  const scratch = join(opts.scratch, attempt);
  try {
    await runAndHandIn(nats, msg, message, attempt, scratch, cancel.signal, opts);
  } catch (error) {
    // Not acknowledged: the face hears no more beats and ends the attempt `worker lost`.
    opts.log(`${message.run} ${attempt}: ${(error as Error).message}`);
    msg.term();
  } finally {
    clearInterval(beat);
    cancels.unsubscribe();
    opts.signal.removeEventListener('abort', onStop);
    running.delete(attempt);
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function runAndHandIn(
  nats: Nats,
  msg: JsMsg,
  message: JobMessage,
  attempt: string,
  scratch: string,
  signal: AbortSignal,
  opts: FleetWorkerOptions,
): Promise<void> {
  const { job, run } = message;
  const fetched = await fetchInputs(opts.cache, job, message.inputs, scratch);
  // An input that did not arrive intact is absent: the attempt's own check then ends it BLOCKED
  // (its inputs no longer match the job), with a receipt saying so.
  if (fetched) opts.log(`${run} ${attempt}: ${fetched}`);
  opts.store.lifecycle.putJob(job, scratch);
  opts.store.lifecycle.startRemoteAttempt(
    { run, attempt },
    { key: job.key, label: job.label, kind: job.rule.kind, root: scratch },
  );
  const result = await executeAttempt(job, run, attempt, {
    root: scratch,
    store: opts.store,
    rules: opts.rules,
    env: opts.env,
    signal,
  });
  const handed = await handInResult(opts.store, opts.cache, opts.signingKey, job.key, result.receipt);
  if (!handed.ok) throw new Error(`its result could not be uploaded: ${handed.reason}`);
  // Acknowledged only now that the result is in the remote cache: a worker lost before this point
  // leaves the message to the deadline, and its attempt ends interrupted at the face.
  msg.ack();
  const reply = await nats.nc
    .request(
      `${message.face}.result`,
      encode({ schema: 'vkit.fleet.result/1', run, attempt, envelope: handed.envelope }),
      {
        timeout: ASK_MS,
      },
    )
    .then(
      (answer) => readResultReply(answer.data),
      // The face is gone: the result stays in the remote cache for its next build.
      (error: Error) => ({ recorded: false as const, reason: error.message }),
    );
  opts.log(
    `${job.label} ${run} ${attempt}: ${result.outcome}${reply.recorded ? '' : ` (not recorded by its face: ${reply.reason})`}`,
  );
}
