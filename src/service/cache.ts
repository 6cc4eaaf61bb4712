/** `vkit cache status`: the remote a build would use and the keys around it. Reads no store. */
import { readConfig } from '../config/load.js';
import { invalid, VkitError } from '../errors.js';
import { readLock } from '../formal/lock.js';
import { publishEvidence } from '../remote/exchange.js';
import { RemoteCache } from '../remote/http.js';
import { readSigningKey } from '../remote/keys.js';
import { trustedSigners } from '../remote/trust.js';
import { type OpenOptions, openWorkspace } from './workspace.js';

export interface CacheStatus {
  schema: 'vkit.cache-status/1';
  url: string | null;
  reachable: boolean | null;
  problem: string | null;
  signing_key: string | null;
  trusted_signers: { keyid: string; name: string | null }[];
}

export async function cacheStatus(req: { root: string; url?: string; env: NodeJS.ProcessEnv }): Promise<CacheStatus> {
  let url = req.url ?? (req.env.VKIT_REMOTE?.trim() || null);
  if (url === null) {
    // The config's remote, when there is a config (the status of a bare directory still prints).
    const config = await readConfig(req.root).catch((error: Error) => {
      if (error instanceof VkitError && error.code === 'ERR_CONFIG_NOT_FOUND') return undefined;
      throw error;
    });
    const remote = config?.manifest.remote as { url: string; read: boolean } | undefined;
    await config?.close();
    url = remote && remote.read !== false ? remote.url : null;
  }
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

export interface CachePush {
  schema: 'vkit.cache-push/1';
  url: string;
  keyid: string;
  pushed: { run: string; label: string; ok: boolean; reason: string | null }[];
}

/** `vkit cache push`: signs and uploads intact PASS/FAIL receipts already in the store. */
export async function cachePush(
  open: OpenOptions,
  url: string | undefined,
  runs: string[] | undefined,
): Promise<CachePush> {
  const ws = await openWorkspace({ ...open, remote: url ? { url } : {} });
  try {
    const remote = ws.remote;
    if (!remote)
      throw invalid('ERR_USAGE', "No remote: give --remote URL, set VKIT_REMOTE or the config's remote.url", {
        path: '--remote',
      });
    if (!remote.signingKey)
      throw invalid(
        'ERR_USAGE',
        'No signing key: set VKIT_SIGNING_KEY to the key file (nothing is uploaded unsigned)',
        {
          path: 'VKIT_SIGNING_KEY',
        },
      );
    const receipts: { run: string; receipt: string }[] = [];
    if (runs?.length)
      for (const id of runs) {
        const run = ws.store.lifecycle.getRun(id);
        if (!run) throw invalid('ERR_USAGE', `No run \`${id}\` in this store`, { path: '--run' });
        if (run.receipt) receipts.push({ run: id, receipt: run.receipt });
        else throw invalid('ERR_USAGE', `Run \`${id}\` has no receipt (${run.state})`, { path: '--run' });
      }
    else
      for (const latest of ws.store.actions.latestAll().values()) {
        const read = ws.store.actions.readReceipt(latest.receipt);
        if (read.state === 'intact') receipts.push({ run: String(read.receipt.run), receipt: latest.receipt });
      }
    const pushed: CachePush['pushed'] = [];
    for (const r of receipts) {
      const read = ws.store.actions.readReceipt(r.receipt);
      const label = read.state === 'intact' ? String(read.receipt.label) : '?';
      const key = read.state === 'intact' ? String(read.receipt.key) : '';
      const done =
        read.state === 'intact'
          ? await publishEvidence(ws.store, remote.cache, remote.signingKey, key, r.receipt)
          : { ok: false as const, reason: `receipt ${read.state}` };
      pushed.push({ run: r.run, label, ok: done.ok, reason: done.ok ? null : done.reason });
    }
    return { schema: 'vkit.cache-push/1', url: remote.cache.url, keyid: remote.signingKey.keyid, pushed };
  } finally {
    ws.close();
  }
}
