/**
 * The text of the `vkit.config.ts` that `vkit init` writes: TypeScript a person reads and edits (one
 * shared `inputs` list, one check per line or block, a comment for each choice made for them), in
 * the form the README shows. Pure.
 */
import type { StarterCheck } from './init-project.js';

const HEADER = `import { defineConfig } from 'vkit';

// Every check is required: the gate is READY only when each has intact, current, passing evidence.
// inputs: every file the checks read (globs relative to this folder); a change to any reruns them.
// vkit never captures git-ignored or secret-looking files, so a glob that could select one (or
// reach into an ignored directory) is a config error until the same inputs exclude it with \`!\`:
// \`!path\` for a file, \`!dir/**\` for a directory, as below.
`;

/** The config's text for these checks, all reading `inputs` (positive globs first, then exclusions). */
export function renderConfig(checks: readonly StarterCheck[], inputs: readonly string[], ignoredNote: string): string {
  const selected = inputs.filter((g) => !g.startsWith('!'));
  const excluded = inputs.filter((g) => g.startsWith('!'));
  const list = [
    ...selected.map((g) => `  ${str(g)},`),
    ...(excluded.length
      ? [...comment(ignoredNote, 2).map((l) => `  ${l}`), ...excluded.map((g) => `  ${str(g)},`)]
      : []),
  ];
  const deps = checks.some((c) => c.npmDeps)
    ? `
// The scripts run installed packages: the lock file and every file under node_modules join the
// identity of each check with \`deps\`, so installing other versions reruns it.
const deps = { npm: '.' };
`
    : '';
  return `${HEADER}const inputs = [
${list.join('\n')}
];
${deps}
export default defineConfig({
  checks: [
${checks.map(renderCheck).join('\n')}
  ],
});
`;
}

/** One check: a line when it has nothing but id, run and inputs, else a block with a comment per choice. */
function renderCheck(c: StarterCheck): string {
  const note = c.note
    ? comment(c.note, 4)
        .map((l) => `    ${l}\n`)
        .join('')
    : '';
  const head = [`id: ${str(c.id)}`, `run: ${value(c.run)}`, 'inputs', ...(c.npmDeps ? ['deps'] : [])];
  const extra: string[] = [];
  if (c.outputs)
    extra.push(
      ...comment(
        `Its outputs: ${c.outputs.why}. Kept with its evidence; a build finding them changed or gone runs it again, and it runs alone (no other check writes beside it).`,
        6,
      ),
      `outputs: ${value(c.outputs.globs)},`,
    );
  if (c.after) extra.push(...comment(`Runs after the build: ${c.after.why}.`, 6), `after: ${value(c.after.ids)},`);
  if (!extra.length) return `${note}    { ${head.join(', ')} },`;
  return `${note}    {\n${[...head.map((h) => `${h},`), ...extra].map((l) => `      ${l}`).join('\n')}\n    },`;
}

/** A comment of one or more lines, wrapped before column 100 at `indent` spaces. */
function comment(text: string, indent: number): string[] {
  const lines: string[] = [];
  let line = '//';
  for (const word of text.split(' ')) {
    if (line.length > 2 && indent + line.length + 1 + word.length > 100) {
      lines.push(line);
      line = '//';
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

function value(v: string | readonly string[]): string {
  return typeof v === 'string' ? str(v) : `[${v.map(str).join(', ')}]`;
}

/** A single-quoted TypeScript string literal. */
function str(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}
