/**
 * What the face and a fleet worker say to each other over NATS (docs/fleet.md). One JetStream
 * message per run carries the frozen job and where its inputs are in the remote cache's CAS, never
 * their bytes; the rest is core NATS request/reply on the face's own subjects: a worker claims the
 * run (the face starts the attempt and answers its id, so a duplicate delivery or a run already
 * ended is refused), heartbeats it every second, and hands in its result as the digest of a signed
 * envelope in the CAS. Every message read is checked here before anything acts on it.
 */
import type { Job } from '../job.js';

/** The subject jobs of `stream` are published on (a stream's subjects must not overlap another's). */
export const jobSubject = (stream: string): string => `${stream}.run`;
/** The durable pull consumer every worker of a stream shares: each message goes to one of them. */
export const CONSUMER = 'vkit-workers';
export const DEFAULT_STREAM = 'VKIT_JOBS';
/** Where a worker's presence beats go (`vkit workers` listens). */
export const WORKERS_SUBJECT = 'vkit.workers';
/** A cancellation of one attempt: only that attempt's worker listens on it. */
export const cancelSubject = (attempt: string): string => `vkit.cancel.${attempt}`;

/** How often a worker heartbeats (JetStream's in-progress ack and the face's beat). */
export const BEAT_MS = 1000;
/** The ack deadline: a worker unheard of this long is lost, and the message may be delivered again. */
export const ACK_WAIT_MS = 5000;

export interface InputBlob {
  /** Root-relative path, as captured. */
  path: string;
  /** As captured: `100644`, or `100755` for an executable (symlinks are not sent). */
  mode: '100644' | '100755';
  /** Digest of the file's raw bytes (its CAS address; the capture's own digest may be of text-mode bytes). */
  sha256: string;
  size: number;
}

export interface JobMessage {
  schema: 'vkit.fleet.job/1';
  run: string;
  /** The face's subject prefix: `<face>.claim`, `<face>.beat`, `<face>.result`. */
  face: string;
  job: Job;
  inputs: InputBlob[];
}

export interface WorkerInfo {
  id: string;
  host: string;
  labels: string[];
  slots: number;
}

export interface ClaimRequest {
  schema: 'vkit.fleet.claim/1';
  run: string;
  worker: WorkerInfo;
}

export type ClaimReply = { ok: true; attempt: string } | { ok: false; reason: string };

export interface ResultRequest {
  schema: 'vkit.fleet.result/1';
  run: string;
  attempt: string;
  /** The signed envelope (DSSE, the receipt's in-toto statement) in the CAS. */
  envelope: { sha256: string; size: number };
}

export type ResultReply = { recorded: true } | { recorded: false; reason: string };

const RUN = /^run_[0-9a-z]{9,}$/;
const ATTEMPT = /^att_[0-9a-z]{9,}$/;
const FACE = /^vkit\.face\.[A-Za-z0-9_-]+$/;
const SHA = /^sha256:[0-9a-f]{64}$/;
const MAX_SIZE = 2 ** 40;

/** A root-relative path that stays under the root: no `..`, no absolute path, no empty part. */
export function safeRelative(path: unknown): path is string {
  if (typeof path !== 'string' || path.length === 0 || path.length > 4096 || path.includes('\0')) return false;
  if (path.startsWith('/') || path.includes('\\')) return false;
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

function parse(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(Buffer.from(bytes).toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const isSize = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0 && (n as number) < MAX_SIZE;

/** The job message, or why a worker must not act on it. */
export function readJobMessage(bytes: Uint8Array): JobMessage | string {
  const m = parse(bytes);
  if (m?.schema !== 'vkit.fleet.job/1') return 'not a vkit.fleet.job/1 message';
  if (typeof m.run !== 'string' || !RUN.test(m.run)) return 'the message names no run';
  if (typeof m.face !== 'string' || !FACE.test(m.face)) return 'the message names no face subject';
  const job = m.job as Job | undefined;
  if (typeof job !== 'object' || job === null || job.schema !== 'vkit.job/1' || typeof job.key !== 'string')
    return 'the message carries no vkit.job/1';
  if (!Array.isArray(m.inputs)) return 'the message lists no inputs';
  if (!Array.isArray(job.capture?.files) || !job.capture.files.every((f) => safeRelative(f?.path)))
    return 'a captured path of the job leaves the scratch directory';
  for (const i of m.inputs as InputBlob[]) {
    if (!safeRelative(i?.path)) return `input path ${JSON.stringify(i?.path)} leaves the scratch directory`;
    if (
      typeof i.sha256 !== 'string' ||
      !SHA.test(i.sha256) ||
      !isSize(i.size) ||
      (i.mode !== '100644' && i.mode !== '100755')
    )
      return `input ${i.path} has no digest, size or mode`;
  }
  return m as unknown as JobMessage;
}

export function readClaim(bytes: Uint8Array): ClaimRequest | undefined {
  const m = parse(bytes);
  const w = m?.worker as WorkerInfo | undefined;
  if (m?.schema !== 'vkit.fleet.claim/1' || typeof m.run !== 'string' || !RUN.test(m.run)) return undefined;
  if (typeof w !== 'object' || w === null || typeof w.id !== 'string' || typeof w.host !== 'string') return undefined;
  return m as unknown as ClaimRequest;
}

export function readClaimReply(bytes: Uint8Array): ClaimReply {
  const m = parse(bytes);
  if (m?.ok === true && typeof m.attempt === 'string' && ATTEMPT.test(m.attempt))
    return { ok: true, attempt: m.attempt };
  return { ok: false, reason: typeof m?.reason === 'string' ? m.reason : 'the face refused the claim' };
}

export function readBeat(bytes: Uint8Array): string | undefined {
  const m = parse(bytes);
  return typeof m?.attempt === 'string' && ATTEMPT.test(m.attempt) ? m.attempt : undefined;
}

export function readResult(bytes: Uint8Array): ResultRequest | undefined {
  const m = parse(bytes);
  const e = m?.envelope as ResultRequest['envelope'] | undefined;
  if (m?.schema !== 'vkit.fleet.result/1' || typeof m.run !== 'string' || !RUN.test(m.run)) return undefined;
  if (typeof m.attempt !== 'string' || !ATTEMPT.test(m.attempt)) return undefined;
  if (typeof e !== 'object' || e === null || typeof e.sha256 !== 'string' || !SHA.test(e.sha256) || !isSize(e.size))
    return undefined;
  return m as unknown as ResultRequest;
}

export function readResultReply(bytes: Uint8Array): ResultReply {
  const m = parse(bytes);
  if (m?.recorded === true) return { recorded: true };
  return { recorded: false, reason: typeof m?.reason === 'string' ? m.reason : 'the face did not record it' };
}

export const encode = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value));
