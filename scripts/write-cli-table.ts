// Rewrites README.md's CLI table from the command table (src/cli/table.ts): `npm run readme:cli`.
// test/cli/readme-table.test.ts fails while the two differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registry } from '../rules/index.js';
import { allVerbs, README_TABLE_END, README_TABLE_START, readmeTable } from '../src/cli/table.js';
import { installKinds } from '../src/config/kind.js';

const file = join(process.cwd(), 'README.md');
const text = readFileSync(file, 'utf8');
const start = text.indexOf(README_TABLE_START);
const end = text.indexOf(README_TABLE_END);
if (start < 0 || end < start) {
  console.error(`README.md: expected ${README_TABLE_START} ... ${README_TABLE_END} around the CLI table`);
  process.exit(2);
}
installKinds(registry);
const table = readmeTable(await allVerbs());
const next = `${text.slice(0, start + README_TABLE_START.length)}\n${table}\n${text.slice(end)}`;
if (next === text) console.log('README.md: the CLI table is up to date');
else {
  writeFileSync(file, next);
  console.log('README.md: rewrote the CLI table');
}
