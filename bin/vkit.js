#!/usr/bin/env node
// `build` and `gate` first ask the root's resident build process, when one runs (`vkit daemon start`),
// through its small client alone; anything it does not serve runs here. The process is guarded
// first: a closed stdout or stderr, or an error escaping a handler, never changes the exit code
// (src/cli/main.ts, src/daemon/client.ts). The built-in kinds
// (rules/) are handed in here: src/ never imports them.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PACKAGE = fileURLToPath(new URL('../', import.meta.url));

// The bundled CLI (scripts/bundle-cli.ts) loads in a fraction of the time of tsc's ~110 modules; it
// runs only while every module it was made from is as it was then (by size and mtime, or by content
// when only the mtime moved), else tsc's modules run.
// Returns the running code's identity then (what vkit keeps between processes is keyed by it:
// src/fast/manifest-cache.ts): the digest of that record, which holds every input's sha256.
function currentBundle(sha256Of) {
  try {
    const record = readFileSync(`${PACKAGE}dist/bundle/inputs.json`, 'utf8');
    const inputs = JSON.parse(record);
    for (const [file, [size, mtimeMs, sha256]] of Object.entries(inputs)) {
      const st = statSync(PACKAGE + file);
      if (st.size !== size) return undefined;
      if (st.mtimeMs !== mtimeMs && sha256Of(readFileSync(PACKAGE + file)) !== sha256) return undefined;
    }
    return `sha256:${sha256Of(record)} node ${process.version}`;
  } catch {
    return undefined;
  }
}

async function runHere() {
  // node:crypto loads only on this path: a served command never needs it.
  const { createHash } = await import('node:crypto');
  const code = currentBundle((bytes) => createHash('sha256').update(bytes).digest('hex'));
  const bundled = code !== undefined;
  // A no-op answered from its record (src/fast/noop-recall.ts: every path it stands on statted, equal
  // to when it was recorded) loads none of the CLI, the store or git, nor a TS config's thread.
  let likelyToRun = false;
  if (bundled && shortcut) {
    const recalled = await (await import('../dist/src/fast/noop-recall.js')).recallNoop(argv, code);
    if (typeof recalled === 'number') {
      process.exitCode = recalled;
      return;
    }
    likelyToRun = recalled.likelyToRun;
    if (process.env.VKIT_NOOP_DEBUG) process.stderr.write(`no-op record not used: ${recalled.why}\n`);
  }
  // Before the CLI's modules: a TS config's thread starts booting and the root's git listing starts
  // (src/fast/boot-ahead.ts; a no-op build waits for both). tsc's small modules, whichever modules run
  // below: they only start the thread and the git processes.
  const bootAhead = await import('../dist/src/fast/boot-ahead.js');
  const booted = bootAhead.configThreadAhead(argv);
  const listed = bootAhead.listingAhead(argv);
  // `build` and `gate` run the bundled CLI as one script compiled with V8's code cache (D56,
  // src/fast/code-cache.ts); other verbs (the terminal UI's packages need ES modules) load the bundle's modules.
  const script =
    bundled && shortcut
      ? (await import('../dist/src/fast/code-cache.js')).runCachedScript(`${PACKAGE}dist/bundle/cli.cjs`).exports
      : undefined;
  const start = script ?? (await import(bundled ? '../dist/bundle/start.js' : '../dist/src/cli/start.js'));
  start.guardProcess(argv);
  // The git listing and the config thread are handed over (src/fast/hand-over.ts).
  start.handOver(argv, booted, listed);
  const cli = script ?? (await import(bundled ? '../dist/bundle/cli.js' : '../dist/src/cli/entry.js'));
  // The bundle loads its own copy of the kinds; processes vkit starts load them by this URL.
  cli.installKinds(new URL('../dist/rules/index.js', import.meta.url).href, cli.loadRegistry);
  cli.installKeptConfigs(code);
  // A build whose record missed because the tree or the store changed since, or that has no record
  // at all, most likely runs something: its job worker starts ahead, once its job service is made
  // (D55, D57, D58).
  const ahead = likelyToRun && argv[0] === 'build' && !argv.includes('--help') && process.env.VKIT_STANDBY !== '0';
  if (ahead) cli.speculativeStandbyWorker(process.env);
  cli.recordNoops(argv, code);
  process.exitCode = await cli.runCli(argv);
  if (ahead) cli.dropStandbyWorker();
  // The answer is out first (src/cli/coalesce.ts flushes on the next turn); the record is written after it.
  await new Promise((resolve) => setImmediate(resolve));
  const why = await cli.keepNoopRecord(process.exitCode);
  if (why && process.env.VKIT_NOOP_DEBUG) process.stderr.write(`no-op record: ${why}\n`);
}

const argv = process.argv.slice(2);
// A root's resident build process answers first, when its socket exists: only its small client
// loads (src/daemon/client.ts), none of the CLI.
const { mayBeServed, SHORTCUT_VERBS } = await import('../dist/src/daemon/paths.js');
// `build` and `gate`: what a no-op record may answer and the one-script CLI runs.
const shortcut = SHORTCUT_VERBS.has(argv[0]);
const served = mayBeServed(argv) ? await (await import('../dist/src/daemon/client.js')).serveHere(argv) : undefined;
if (served !== undefined) process.exitCode = served;
else await runHere();
