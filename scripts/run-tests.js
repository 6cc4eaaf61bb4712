#!/usr/bin/env node
// Lists compiled test files and hands them to `node --test`. Node 20 neither expands `**` nor
// discovers `.js` files under a directory argument the way we need, hence this tiny script.
// `--fast` (the dogfood build's set) skips suites marked slow (file names ending in `.slow.test.js`)
// and suites that need a system tool: those call one of the loud-skip helpers of test/_support/
// (`systemSandbox` for podman and the worker images, or one named `<tool>Skip`: `toolsSkip` for spin, `nginxSkip`, `natsSkip`, `z3Skip`, ...). The full
// suite (`npm test`, run just before the dogfood build in CI) runs them all. `--system` runs only the
// suites that can skip for a missing system tool (those naming VKIT_REQUIRE_SYSTEM or a skip
// helper): CI runs them again after installing the tools, having run everything on a bare machine.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const fast = process.argv.includes('--fast');
const system = process.argv.includes('--system');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const files = [];
// A loud-skip helper is named after what it needs (`nginxSkip`, `z3Skip`, ...): a kind's new one is found
// by its name, with no list here to forget.
const SYSTEM_TOOL_SKIPS = /\b(systemSandbox|[a-z0-9]+Skip)\(/;
const needsSystemTools = (file) => SYSTEM_TOOL_SKIPS.test(readFileSync(file, 'utf8'));
const MAY_SKIP = /\b(systemSandbox|sandboxBackends|[a-z0-9]+Skip)\(|VKIT_REQUIRE_SYSTEM/;
const maySkip = (file) => MAY_SKIP.test(readFileSync(file, 'utf8'));
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (
      e.name.endsWith('.test.js') &&
      !(fast && (e.name.endsWith('.slow.test.js') || needsSystemTools(p))) &&
      !(system && !maySkip(p))
    )
      files.push(p);
  }
};
walk('dist/test');
const selected = only.length ? files.filter((f) => only.some((o) => f.includes(o))) : files;
selected.sort();
// With no files, `node --test` would fall back to its own discovery (helpers included): refuse instead.
if (selected.length === 0) {
  process.stderr.write(
    `run-tests: no compiled test file matches ${only.map((o) => `\`${o}\``).join(', ') || '(none found under dist/test)'}\n`,
  );
  process.exit(2);
}
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...selected], { stdio: 'inherit' });
process.exit(r.status ?? 1);
