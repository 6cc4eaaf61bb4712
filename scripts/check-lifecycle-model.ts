/**
 * `npm run model:lifecycle -- [options] CHECK...`: checks the lifecycle model
 * (fixtures/lifecycle/lifecycle.pml) with Spin, in a temp dir. USAGE below says how.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { $, which } from 'zx';

const USAGE = `Checks the lifecycle model (fixtures/lifecycle/lifecycle.pml) with Spin, in a temp dir.

  npm run model:lifecycle -- [-D NAME]... [-O LEVEL] [-j JOBS] [--trail] CHECK...
  (or: node dist/scripts/check-lifecycle-model.js ...)

CHECK is the name of an ltl block in the model (checked with \`pan -a -N NAME\`), or \`end-states\`:
invalid end states (a process stuck forever, e.g. a face waiting on a run nobody will end), checked
without a claim in the QUIET world (nobody else cancels or opens the store). -D defines a model
macro, e.g. -D BUG_RECOVER_LIVE (see fixtures/lifecycle/README.md). The model is compiled once for
the ltl checks and once for \`end-states\`; checks run up to JOBS at a time (default 2).

Prints each check's pan output, then one summary line per check:
  lifecycle-model: check=NAME errors=N states=N transitions=N depth=N seconds=S complete=yes|no
\`complete=no\` means the search was cut short (memory or depth limit): not a verification.
--trail replays each counterexample (spin -t -p). Exit status: 0 when every check ran (whatever it
found), 2 on usage errors, 3 when spin or gcc is missing or the model does not compile.
Needs spin and gcc: \`npm run setup:system\` installs them.
`;

const MODEL = fileURLToPath(new URL('../../fixtures/lifecycle/lifecycle.pml', import.meta.url));

function fail(message: string, code: number): never {
  process.stderr.write(`check-lifecycle-model: ${message}\n`);
  process.exit(code);
}

const defines: string[] = [];
let opt = '1';
let jobsMax = 2;
let trail = false;
const checks: string[] = [];
const args = process.argv.slice(2);
const value = (option: string) => args.shift() ?? fail(`${option} needs a value`, 2);
while (args.length > 0) {
  const arg = args.shift()!;
  if (arg === '-D') defines.push(`-D${value(arg)}`);
  else if (arg.startsWith('-D')) defines.push(arg);
  else if (arg === '-O') opt = value(arg);
  else if (arg === '-j') {
    jobsMax = Number(value(arg));
    if (!Number.isInteger(jobsMax)) fail('-j needs a whole number', 2);
  } else if (arg === '--trail') trail = true;
  else if (arg === '-h' || arg === '--help') {
    process.stdout.write(USAGE);
    process.exit(0);
  } else if (arg.startsWith('-')) fail(`unknown option ${arg}`, 2);
  else checks.push(arg);
}
if (checks.length === 0) fail('name at least one check (an ltl block, or end-states)', 2);
for (const tool of ['spin', 'gcc']) {
  if (!(await which(tool, { nothrow: true }))) fail(`${tool} not found; run \`npm run setup:system\``, 3);
}

const work = mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'vkit-spin-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.on(signal, () => process.exit(code));
}

/** Builds pan in work/NAME with model macros and C flags. */
async function build(name: string, macros: string[], cflags: string[]): Promise<void> {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  copyFileSync(MODEL, join(dir, 'lifecycle.pml'));
  const spin = await $({ cwd: dir, nothrow: true })`spin ${defines} ${macros} -a lifecycle.pml >spin.out 2>&1`;
  if (!spin.ok) {
    process.stderr.write(readFileSync(join(dir, 'spin.out')));
    process.exit(3);
  }
  // MEMLIM (MB) makes a runaway search stop with a message instead of exhausting the machine.
  const gcc = await $({
    cwd: dir,
    nothrow: true,
    stdio: 'inherit',
  })`gcc -w -O${opt} -DMEMLIM=2048 ${cflags} -o pan pan.c`;
  if (!gcc.ok) fail('gcc failed', 3);
}

if (checks.some((c) => c !== 'end-states')) await build('ltl', [], []);
if (checks.includes('end-states')) await build('end', ['-DQUIET'], ['-DSAFETY', '-DNOCLAIM']);

const ltlBlocks = new Set(
  readFileSync(MODEL, 'utf8')
    .split('\n')
    .flatMap((line) => /^ltl (\S+) /.exec(line)?.[1] ?? []),
);

/** Runs one check, its pan output (whatever pan found) in work/CHECK.out. */
async function run(check: string): Promise<void> {
  const out = join(work, `${check}.out`);
  if (check === 'end-states') {
    await $({ cwd: join(work, 'end'), nothrow: true })`./pan -m100000 -w21 >${out} 2>&1`;
  } else if (!ltlBlocks.has(check)) {
    writeFileSync(out, `check-lifecycle-model: no ltl block named ${check}\n`);
  } else {
    // Each check gets its own trail file name, so parallel runs do not overwrite each other's.
    await $({
      cwd: join(work, 'ltl'),
      nothrow: true,
    })`./pan -a -m100000 -w21 -N ${check} -t${check}.trail >${out} 2>&1`;
  }
}

// Up to jobsMax checks at a time.
const queue = [...checks];
await Promise.all(
  Array.from({ length: Math.max(1, jobsMax) }, async () => {
    for (let c = queue.shift(); c !== undefined; c = queue.shift()) await run(c);
  }),
);

/** The first capture of `re` in any line of `text`, or '' (sed -n 's/re/\1/p' | head -n1). */
const first = (re: RegExp, text: string) => {
  for (const line of text.split('\n')) {
    const m = re.exec(line);
    if (m) return m[1]!;
  }
  return '';
};
for (const c of checks) {
  const out = readFileSync(join(work, `${c}.out`), 'utf8');
  process.stdout.write(`=== ${c}\n${out}`);
  const errors = first(/^.*errors: ([0-9]*)/, out);
  const states = first(/^ *([0-9][0-9e.+]*) states, stored/, out);
  const transitions = first(/^ *([0-9][0-9e.+]*) transitions/, out);
  const depth = first(/^.*depth reached ([0-9]*)/, out);
  const seconds = first(/^pan: elapsed time ([0-9.e+]*)/, out);
  const cut = ['memory limit', 'max search depth too small', 'out of memory'].some((s) => out.includes(s));
  const complete = errors !== '' && !cut ? 'yes' : 'no';
  process.stdout.write(
    `lifecycle-model: check=${c} errors=${errors || '-1'} states=${states || '0'} transitions=${transitions || '0'} ` +
      `depth=${depth || '0'} seconds=${seconds || '0'} complete=${complete}\n`,
  );
  if (trail && (errors || '0') !== '0') {
    if (c === 'end-states') {
      await $({
        cwd: join(work, 'end'),
        nothrow: true,
        stdio: 'inherit',
      })`spin ${defines} -DQUIET -t -p -g lifecycle.pml`;
    } else {
      await $({
        cwd: join(work, 'ltl'),
        nothrow: true,
        stdio: 'inherit',
      })`spin ${defines} -t -p -g -k ${`lifecycle.pml.${c}.trail`} lifecycle.pml`;
    }
  }
}
