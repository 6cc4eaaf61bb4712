/**
 * A detached worker process (entries: `worker-main.ts`, and the bundle's `worker.js`): `node worker-main.js --store DIR --queue Q --kinds URL [--confine]`
 * (`--kinds`: the URL of the kind registry module its face was handed; `--confine`:
 * every process sandboxed, whatever its rule asks; the protected gate's workers). Claims the queue's runs
 * one at a time and executes them (re-planning each frozen job from the rule registry; user rules by
 * reloading the config that registered them), heartbeating, until the queue stays empty. SIGUSR2
 * makes it check its attempt's cancel flag at once; SIGTERM cancels what it runs and exits.
 */
import { writeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.js';
import { installKinds, type KindRegistry, loadKinds, loadRules, ruleKindsOf } from '../config/kind.js';
import type { Rule } from '../config/rule.js';
import type { Assignment } from './standby.js';
import { openWorkerLog } from './worker-entry.js';
import { EXIT, VkitError } from '../errors.js';
import { currentOwner } from '../store/liveness.js';
import { Store } from '../store/store.js';
import { CLAIMED, checkCancellations, executeAttempt, failureLine, frozenJobOf } from './worker.js';

const IDLE_EXIT_MS = 1500;

/** Where the worker's own failure is written: its stderr (a standby's: its queue's log, once assigned). */
let say = (text: string): void => void process.stderr.write(text);

/**
 * The worker's whole life, from its arguments to its exit. `builtinKinds` is how a bundled worker
 * (scripts/bundle-cli.ts) loads the built-in kinds: its own copy, when `--kinds` names them, so that
 * the modules it runs are the bundle's and not tsc's.
 */
export function runWorkerProcess(
  args: string[],
  builtinKinds?: { module: string; load: () => Promise<KindRegistry> },
): void {
  main(args, builtinKinds).then(
    () => process.exit(0),
    (error: unknown) => {
      say(`vkit worker: ${(error as Error)?.stack ?? String(error)}\n`);
      if (error instanceof VkitError) process.stdout.write(failureLine(error));
      process.exit(error instanceof VkitError ? error.exitCode : EXIT.internal);
    },
  );
}

async function main(
  args: string[],
  builtinKinds: { module: string; load: () => Promise<KindRegistry> } | undefined,
): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      store: { type: 'string' },
      queue: { type: 'string' },
      kinds: { type: 'string' },
      confine: { type: 'boolean' },
      standby: { type: 'boolean' },
    },
    strict: true,
  });
  if (!values.kinds || (!values.standby && (!values.store || !values.queue)))
    throw new Error('usage: worker-main (--store DIR --queue Q | --standby) --kinds URL');
  installKinds(values.kinds, values.kinds === builtinKinds?.module ? builtinKinds.load : undefined);
  const registry = await loadKinds();
  // A worker started for a queued run loads a kind's built-in rules when it claims its first job of
  // that kind: a worker of plain checks never loads the acceptance, model or formal code (~30 ms of
  // a worker's start). A standby has time while it waits: it loads them all first (D52).
  const builtin = values.standby ? await loadRules(registry, ruleKindsOf(registry)) : new Map<string, Rule>();
  const builtinRules = async (kind: string): Promise<ReadonlyMap<string, Rule>> => {
    if (!builtin.has(kind)) for (const [k, rule] of await loadRules(registry, [kind])) builtin.set(k, rule);
    return builtin;
  };
  if (values.standby) {
    // Warm and waiting (standby.ts): the rest of its arguments, and its environment, come now.
    const a = await assignment();
    if (!a) return; // its resident process went away first
    values.store = a.store;
    values.queue = a.queue;
    values.confine = a.confine;
    for (const name of Object.keys(process.env)) delete process.env[name];
    Object.assign(process.env, a.env);
    // Started without a stderr (standby.ts): from now on it writes where a worker of this queue would.
    const log = openWorkerLog(a.store, a.queue);
    say = (text) => void writeSync(log, text);
  }
  const store = new Store(values.store!);
  const owner = currentOwner();
  const stop = new AbortController();
  process.on('SIGUSR2', checkCancellations);
  process.on('SIGTERM', () => stop.abort());
  // The face may be gone; a closed pipe must not kill the worker.
  process.stdout.on('error', () => {});
  const rulesByRoot = new Map<string, Promise<ReadonlyMap<string, Rule>>>();
  let idleSince = Date.now();
  while (!stop.signal.aborted) {
    const claimed = store.lifecycle.claimRun(values.queue!, owner);
    if (!claimed) {
      if (Date.now() - idleSince > IDLE_EXIT_MS) break;
      await new Promise((r) => setTimeout(r, 20));
      continue;
    }
    process.stdout.write(`${CLAIMED}${claimed.run.id}\n`);
    const { job, root } = frozenJobOf(store, claimed.run);
    const builtins = await builtinRules(job.rule.kind);
    let rules: ReadonlyMap<string, Rule> = builtins;
    if (job.rule.source) {
      // A user rule lives in the config's modules: reload them (the key check catches any change).
      let loading = rulesByRoot.get(root);
      if (!loading) {
        loading = loadConfig(root, { inProcess: true }).then((c) => {
          // Only rules whose source is still the one the job was planned with; any other is "not registered".
          const same = [...c.rules].filter(([kind]) =>
            c.manifest.rules.some((r) => r.kind === kind && r.source_sha256 === job.rule.source),
          );
          return new Map([...builtins, ...same]);
        });
        rulesByRoot.set(root, loading);
      }
      rules = await loading.catch(() => builtins);
    }
    await executeAttempt(job, claimed.run.id, claimed.attempt, {
      root,
      store,
      rules,
      env: process.env,
      signal: stop.signal,
      confine: values.confine,
    });
    process.stdout.write(`${claimed.run.id}\n`);
    idleSince = Date.now();
  }
  store.close();
}

/** A standby's assignment: the first line on its stdin, or undefined when stdin closes without one. */
async function assignment(): Promise<Assignment | undefined> {
  let text = '';
  for await (const chunk of process.stdin.setEncoding('utf8')) {
    text += chunk as string;
    const nl = text.indexOf('\n');
    if (nl < 0) continue;
    const a = JSON.parse(text.slice(0, nl)) as Assignment;
    if (typeof a.store !== 'string' || typeof a.queue !== 'string' || typeof a.env !== 'object' || !a.env)
      throw new Error('a standby worker was assigned nothing it can run');
    return a;
  }
  return undefined;
}
