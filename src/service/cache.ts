/** `vkit cache status`: the remote a build would use and the keys around it. Reads no store. */
import { readLock } from '../formal/lock.js';
import { RemoteCache } from '../remote/http.js';
import { readSigningKey } from '../remote/keys.js';
import { trustedSigners } from '../remote/trust.js';

export interface CacheStatus {
  schema: 'vkit.cache-status/1';
  url: string | null;
  reachable: boolean | null;
  problem: string | null;
  signing_key: string | null;
  trusted_signers: { keyid: string; name: string | null }[];
}

export async function cacheStatus(req: { root: string; url?: string; env: NodeJS.ProcessEnv }): Promise<CacheStatus> {
  const url = req.url ?? req.env.VKIT_REMOTE?.trim() ?? null;
  const keyFile = req.env.VKIT_SIGNING_KEY?.trim();
  const signing = keyFile ? readSigningKey(keyFile).keyid : null;
  const trusted = [...trustedSigners(readLock(req.root)).values()].map((k) => ({
    keyid: k.keyid,
    name: k.name ?? null,
  }));
  let reachable: boolean | null = null;
  let problem: string | null = null;
  if (url) {
    const answer = await new RemoteCache({ url, retries: 0 }).reachable();
    reachable = answer.ok;
    problem = answer.ok ? null : answer.reason;
  }
  return {
    schema: 'vkit.cache-status/1',
    url: url || null,
    reachable,
    problem,
    signing_key: signing,
    trusted_signers: trusted,
  };
}
