/**
 * `vkit worker`: its request checked (exit 2 naming the flag), its own store and scratch space
 * opened, every built-in rule loaded, then the fleet worker loop (src/jobs/fleet/fleet-worker.ts)
 * until the signal aborts it.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { natsUrlProblem } from '../config/executor.js';
import { kinds, loadKinds, loadRules, ruleKindsOf } from '../config/kind.js';
import { EXIT, invalid, VkitError } from '../errors.js';
import { runFleetWorker } from '../jobs/fleet/fleet-worker.js';
import { RemoteCache } from '../remote/http.js';
import { readSigningKey } from '../remote/keys.js';
import { Store } from '../store/store.js';

export interface WorkerRequest {
  connect?: string;
  remote?: string;
  slots?: string;
  labels?: string;
  stream?: string;
  dir?: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  log(line: string): void;
}

export async function runWorker(req: WorkerRequest): Promise<void> {
  if (!req.connect)
    throw invalid('ERR_USAGE', 'Expected --connect nats://HOST:PORT (the NATS server)', { path: '--connect' });
  const problem = natsUrlProblem(req.connect);
  if (problem) throw invalid('ERR_USAGE', `${problem} for --connect, got \`${req.connect}\``, { path: '--connect' });
  const remote = req.remote ?? req.env.VKIT_REMOTE?.trim();
  if (!remote || !/^https?:\/\/\S+$/.test(remote))
    throw invalid('ERR_USAGE', `Expected --remote to be the remote cache's http(s) URL, got \`${remote ?? ''}\``, {
      path: '--remote',
    });
  const slots = req.slots === undefined ? 1 : Number(req.slots);
  if (!Number.isInteger(slots) || slots < 1 || slots > 256)
    throw invalid('ERR_USAGE', `Expected --slots to be an integer from 1 to 256, got \`${req.slots}\``, {
      path: '--slots',
    });
  const keyFile = req.env.VKIT_SIGNING_KEY?.trim();
  if (!keyFile)
    throw invalid(
      'ERR_USAGE',
      'A fleet worker signs its results: VKIT_SIGNING_KEY must name its Ed25519 key file',
      { path: 'VKIT_SIGNING_KEY' },
      'Generate one (`openssl genpkey -algorithm ed25519 -out worker.key.pem`) and trust its public half in the projects it serves (`vkit policy trust-signer`).',
    );
  const signingKey = readSigningKey(keyFile);
  const dir = resolve(req.dir ?? 'vkit-worker');
  mkdirSync(join(dir, 'scratch'), { recursive: true });
  const store = new Store(join(dir, 'store'));
  try {
    const rules = await loadRules(await loadKinds(), ruleKindsOf(kinds()));
    await runFleetWorker({
      url: req.connect,
      stream: req.stream,
      cache: new RemoteCache({ url: remote }),
      signingKey,
      store,
      scratch: join(dir, 'scratch'),
      slots,
      labels: (req.labels ?? '').split(',').filter(Boolean),
      rules,
      env: req.env,
      signal: req.signal,
      log: req.log,
    });
  } catch (error) {
    if (error instanceof VkitError) throw error;
    throw new VkitError('ERR_FLEET', EXIT.internal, `vkit worker stopped: ${(error as Error).message}`);
  } finally {
    store.close();
  }
}
