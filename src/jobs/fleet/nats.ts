/**
 * The NATS client, loaded on first use (optional peer dependencies, src/config/optional-package.ts):
 * a connection, its JetStream client and manager, and the work-queue stream and shared consumer
 * jobs travel on. Without the packages, the line saying what to install; with NATS unreachable,
 * why. Neither ever runs anything in place of the fleet.
 */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { FLEET, importOptional } from '../../config/optional-package.js';
import { ACK_WAIT_MS, CONSUMER, jobSubject } from './protocol.js';

type Transport = typeof import('@nats-io/transport-node');
type JetStream = typeof import('@nats-io/jetstream');

export interface Nats {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  jetstream: JetStream;
}

/** Connects to `url`, or says why not (packages missing, server unreachable). */
export async function connectNats(
  url: string,
  name: string,
  opts: { reconnect?: boolean } = {},
): Promise<Nats | { problem: string }> {
  const loaded = await importOptional(FLEET);
  if ('missing' in loaded) return { problem: loaded.missing };
  const [transport, jetstream] = loaded.modules as [Transport, JetStream];
  let nc: NatsConnection;
  try {
    nc = await transport.connect({
      servers: url,
      name,
      timeout: 2000,
      // A face or worker outlives a server restart (file storage keeps the stream): keep trying.
      reconnect: opts.reconnect ?? true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
    });
  } catch (error) {
    return { problem: `NATS at ${url} is unreachable: ${(error as Error).message}` };
  }
  try {
    return { nc, js: jetstream.jetstream(nc), jsm: await jetstream.jetstreamManager(nc), jetstream };
  } catch (error) {
    await nc.close().catch(() => undefined);
    return { problem: `NATS at ${url} has no JetStream (start nats-server with -js): ${(error as Error).message}` };
  }
}

/** The stream `stream` exists: a work queue (each message to one consumer, removed once acked) on file storage. */
export async function ensureStream(nats: Nats, stream: string): Promise<void> {
  const { jsm, jetstream } = nats;
  try {
    await jsm.streams.info(stream);
    return;
  } catch {
    // not there yet: created below (another party may create it meanwhile)
  }
  try {
    await jsm.streams.add({
      name: stream,
      subjects: [jobSubject(stream)],
      retention: jetstream.RetentionPolicy.Workqueue,
      storage: jetstream.StorageType.File,
      // A message published twice with the same id (the run's) is stored once.
      duplicate_window: 120_000_000_000,
    });
  } catch (error) {
    await jsm.streams.info(stream).catch(() => {
      throw error;
    });
  }
}

/** The durable consumer every worker of `stream` pulls from, with the ack deadline of docs/fleet.md. */
export async function ensureConsumer(nats: Nats, stream: string): Promise<void> {
  const { jsm, jetstream } = nats;
  try {
    await jsm.consumers.info(stream, CONSUMER);
    return;
  } catch {
    // created below
  }
  await jsm.consumers.add(stream, {
    durable_name: CONSUMER,
    ack_policy: jetstream.AckPolicy.Explicit,
    ack_wait: ACK_WAIT_MS * 1_000_000,
    max_ack_pending: -1,
  });
}
