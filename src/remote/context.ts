/**
 * The remote cache a build uses, from `--remote URL` (or `VKIT_REMOTE`): where it is, which keys'
 * entries count (`vkit.lock.json`'s trusted signers), and whether and with which key this machine
 * publishes (`VKIT_SIGNING_KEY` names the key file, never the repository). Reading is always on
 * with a remote; `--remote-only-read` (or `VKIT_REMOTE_READ_ONLY=1`) turns publishing off.
 */
import { readLock } from '../formal/lock.js';
import { remoteChoice, type RemoteConfig, type RemoteRequest } from './choice.js';
import type { RemoteSource } from './exchange.js';
import { RemoteCache } from './http.js';
import { readSigningKey, type SigningKey } from './keys.js';
import { trustedSigners } from './trust.js';

export interface RemoteContext extends RemoteSource {
  /** Set when this machine publishes (a remote, not read-only, with a signing key). */
  signingKey?: SigningKey;
  /** Why nothing is uploaded although publishing is on (no key): said once, when a result could have been. */
  unsigned?: string;
  /** A warning line for the user (stderr): a refused entry, a failed upload. */
  warn(line: string): void;
}

export type { RemoteConfig, RemoteRequest } from './choice.js';

/** The remote `remoteChoice` picks, opened: its client, trusted signers and signing key. */
export function openRemote(
  root: string,
  req: RemoteRequest | undefined,
  env: NodeJS.ProcessEnv,
  config?: RemoteConfig,
  warn: (line: string) => void = (line) => process.stderr.write(`vkit: ${line}\n`),
): RemoteContext | undefined {
  const choice = remoteChoice(req, env, config);
  if (!choice) return undefined;
  const { url, readOnly } = choice;
  const timeout = Number(env.VKIT_REMOTE_TIMEOUT_MS);
  const cache = new RemoteCache({ url, ...(Number.isInteger(timeout) && timeout > 0 ? { timeoutMs: timeout } : {}) });
  const trusted = trustedSigners(readLock(root));
  let signingKey: SigningKey | undefined;
  let unsigned: string | undefined;
  if (!readOnly) {
    const file = env.VKIT_SIGNING_KEY?.trim();
    if (file) signingKey = readSigningKey(file);
    else unsigned = `remote ${cache.url}: VKIT_SIGNING_KEY is not set, so nothing is uploaded (entries are still read)`;
  }
  return { cache, trusted, ...(signingKey ? { signingKey } : unsigned ? { unsigned } : {}), warn };
}
