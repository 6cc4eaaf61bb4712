/** `vkit init`: writes a starter `vkit.config.ts` whose one check matches the project it finds. */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listWorkTree } from '../capture/listing.js';
import { uncapturedPaths } from '../capture/selector.js';
import { findConfig } from '../config/load.js';
import { invalid } from '../errors.js';

export async function initConfig(root: string): Promise<{ file: string }> {
  const existing = findConfig(root);
  if (existing)
    throw invalid(
      'ERR_INIT_EXISTS',
      `A config already exists: ${existing}`,
      { file: existing },
      'Edit it, or remove it first.',
    );
  const check = existsSync(join(root, 'package.json'))
    ? { id: 'test', run: ['npm', 'test'], inputs: ['package.json', '**/*.{js,ts,mjs,cjs,json}', '!node_modules/**'] }
    : existsSync(join(root, 'Cargo.toml'))
      ? { id: 'test', run: ['cargo', 'test', '--offline'], inputs: ['Cargo.toml', '**/*.rs', '!target/**'] }
      : // A placeholder that fails until replaced: a starter must never make the gate green by itself.
        { id: 'todo', run: 'echo "replace this placeholder with your first real check" >&2; exit 1', inputs: ['**/*'] };
  // The starter must be valid where it is written: whatever else git ignores (or is secret-looking)
  // that its globs could select is excluded by name, so the config says so instead of vkit refusing it.
  const tree = listWorkTree(root);
  const files = await tree.files;
  const ignored = await tree.ignored;
  for (const u of uncapturedPaths(check.inputs, files, ignored))
    if (!check.inputs.includes(u.exclude)) check.inputs.push(u.exclude);
  const text = `import { defineConfig } from 'vkit';

// Every check is required: the gate is READY only when each has intact, current, passing evidence.
// inputs: every file the check reads (globs relative to this folder); a change to any reruns it.
// vkit never captures git-ignored or secret-looking files, so a glob that could select one (or
// reach into an ignored directory) is a config error until the same inputs exclude it with \`!\`:
// \`!path\` for a file, \`!dir/**\` for a directory, as below.
export default defineConfig({
  checks: [
    ${JSON.stringify(check)},
  ],
});
`;
  const file = join(root, 'vkit.config.ts');
  await writeFile(file, text, { flag: 'wx' });
  return { file };
}
