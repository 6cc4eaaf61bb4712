// Rewrites the CLI table of docs/cli.md from the command table (src/cli/table.ts): `npm run docs:cli`.
// test/cli/table.test.ts fails while the two differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registry } from '../rules/index.js';
import { allVerbs, CLI_TABLE_END, CLI_TABLE_PAGE, CLI_TABLE_START, cliTable } from '../src/cli/table.js';
import { installKinds } from '../src/config/kind.js';

const file = join(process.cwd(), CLI_TABLE_PAGE);
const text = readFileSync(file, 'utf8');
const start = text.indexOf(CLI_TABLE_START);
const end = text.indexOf(CLI_TABLE_END);
if (start < 0 || end < start) {
  console.error(`${CLI_TABLE_PAGE}: expected ${CLI_TABLE_START} ... ${CLI_TABLE_END} around the CLI table`);
  process.exit(2);
}
installKinds(registry);
const table = cliTable(await allVerbs());
const next = `${text.slice(0, start + CLI_TABLE_START.length)}\n${table}\n${text.slice(end)}`;
if (next === text) console.log(`${CLI_TABLE_PAGE}: the CLI table is up to date`);
else {
  writeFileSync(file, next);
  console.log(`${CLI_TABLE_PAGE}: rewrote the CLI table`);
}
