/**
 * A fleet job's inputs travel through the remote cache's CAS, never in the message: the face
 * uploads each captured file's raw bytes under their digest, and the worker downloads them into its
 * private scratch directory, each checked against its digest and size as it arrives. The worker's
 * attempt then checks the files against the frozen capture again (text-mode digests included), as
 * any local attempt does: a byte that differs is a BLOCKED result, never a run on other inputs.
 */
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sha256Id } from '../../hash/index.js';
import type { RemoteCache } from '../../remote/http.js';
import type { Job } from '../job.js';
import { type InputBlob, safeRelative } from './protocol.js';

/** Uploads at once, at most. */
const PARALLEL = 8;

/** Uploads the job's inputs the CAS lacks (read from `root`): what the message lists, or why not. */
export async function uploadInputs(root: string, job: Job, cache: RemoteCache): Promise<InputBlob[] | string> {
  const inputs: InputBlob[] = [];
  const files = job.capture.files;
  for (let i = 0; i < files.length; i += PARALLEL) {
    const batch = await Promise.all(
      files.slice(i, i + PARALLEL).map(async (f): Promise<InputBlob | string> => {
        // A link's digest is of its target, which may point anywhere on the face's machine.
        if (f.mode !== '100644' && f.mode !== '100755')
          return `input ${f.path} is a symbolic link: fleet workers are sent regular files only`;
        let bytes: Buffer;
        try {
          bytes = readFileSync(join(root, f.path));
        } catch (error) {
          return `input ${f.path} could not be read: ${(error as Error).message}`;
        }
        // The digest of the bytes uploaded, as read now: an edit since planning shows on the worker
        // as an input that no longer matches the frozen job.
        const sha256 = sha256Id(bytes);
        const has = await cache.hasBlob(sha256);
        if (!(has.ok && has.value)) {
          const put = await cache.putBlobBytes(sha256, bytes);
          if (!put.ok) return `input ${f.path} could not be uploaded to ${cache.url}: ${put.reason}`;
        }
        return { path: f.path, mode: f.mode, sha256, size: bytes.length };
      }),
    );
    for (const b of batch) {
      if (typeof b === 'string') return b;
      inputs.push(b);
    }
  }
  return inputs;
}

/**
 * Downloads the inputs into `scratch` (which must be new and empty), each verified against its
 * digest and size; also makes the job's working directory. Resolves to why it could not, or undefined.
 */
export async function fetchInputs(
  cache: RemoteCache,
  job: Job,
  inputs: readonly InputBlob[],
  scratch: string,
): Promise<string | undefined> {
  mkdirSync(scratch, { recursive: true });
  const cwd = (job.attrs as { cwd?: unknown }).cwd;
  if (typeof cwd === 'string' && cwd !== '.' && cwd !== '') {
    if (!safeRelative(cwd)) return `the job's working directory ${JSON.stringify(cwd)} leaves the scratch directory`;
    mkdirSync(join(scratch, cwd), { recursive: true });
  }
  for (let i = 0; i < inputs.length; i += PARALLEL) {
    const problems = await Promise.all(
      inputs.slice(i, i + PARALLEL).map(async (input) => {
        // Checked again here, whoever built the list: nothing is written outside the scratch directory.
        if (!safeRelative(input.path)) return `input path ${JSON.stringify(input.path)} leaves the scratch directory`;
        const file = join(scratch, input.path);
        mkdirSync(dirname(file), { recursive: true });
        const got = await cache.getBlob(input.sha256, input.size, file);
        if (!got.ok) return `input ${input.path} (${input.sha256}) could not be fetched: ${got.reason}`;
        chmodSync(file, input.mode === '100755' ? 0o755 : 0o644);
        return undefined;
      }),
    );
    const problem = problems.find((p) => p !== undefined);
    if (problem) return problem;
  }
  return undefined;
}
