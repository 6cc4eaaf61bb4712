/**
 * `check` (section `checks`, gate item `check:<id>`): a registered command whose exit code is
 * evidence about its declared inputs. The rule is in `rule.ts`, the entry schema in `schema.ts`.
 */
import { compileGlob } from '../../src/text/glob.js';
import { selectorIssues } from '../../src/capture/selector.js';
import { defineKind, repeatedDependency } from '../../src/config/kind.js';
import { didYouMean } from '../../src/text/suggest.js';
import type { SandboxMode } from '../../src/config/sandbox.js';
import type { Issue } from '../../src/errors.js';
import { CheckSchema } from './schema.js';
import { npmToolGlobs } from '../../src/checkers/npm-deps.js';

export const checkKind = defineKind({
  name: 'check',
  section: 'checks',
  entry: CheckSchema,
  rules: { check: async () => (await import('./rule.js')).checkRule },
  label: (c) => `check:${c.id}`,
  // The config-wide sandbox is a default: each check records its own (it is part of its identity).
  resolve(c, config) {
    c.sandbox ??= (config.sandbox as SandboxMode | undefined) ?? 'isolated';
  },
  confine(c) {
    if (typeof c.sandbox === 'object') c.sandbox = 'isolated';
  },
  validate(checks) {
    const issues: Omit<Issue, 'file'>[] = [];
    // A hermetic check writes only inside its outputs' directories; the root itself cannot be one.
    checks.forEach((c, i) =>
      c.outputs.forEach((o, j) => {
        const g = compileGlob(o);
        if (c.sandbox === 'hermetic' && !g.negated && !(g.literal ? g.prefix.includes('/') : g.prefix !== '')) {
          issues.push({
            path: `checks[${i}].outputs[${j}]`,
            message: `A hermetic check writes its outputs in directories it declares; \`${o}\` is at the root. Put the outputs in a directory (\`out/${o}\`)`,
          });
        }
      }),
    );
    const ids = new Set(checks.map((c) => c.id));
    checks.forEach((c, i) =>
      c.after.forEach((dep, j) => {
        const path = `checks[${i}].after[${j}]`;
        const first = c.after.indexOf(dep);
        if (first < j) issues.push(repeatedDependency(path, dep, first));
        else if (dep === c.id) issues.push({ path, message: `Check \`${c.id}\` cannot run after itself` });
        else if (!ids.has(dep))
          issues.push({ path, message: `Expected the id of a declared check, got \`${dep}\`${didYouMean(dep, ids)}` });
      }),
    );
    return issues;
  },
  // Checks must not select what vkit will not capture (git-ignored or secret-looking files, ignored
  // directories) unless they exclude it.
  open: (c, at, ctx) => selectorIssues(c.inputs, ctx.files, `${at}.inputs`, ctx.shown, ctx.ignored),
  expand: (c) => [
    {
      label: `check:${c.id}`,
      kind: 'check',
      id: c.id,
      attrs: c as unknown as Record<string, unknown>,
      inputs: c.inputs,
      ...(c.line_endings === 'raw' ? { hash: 'raw' as const } : {}),
      declared: true,
      ...(c.deps ? { toolFiles: c.deps.npm.flatMap(npmToolGlobs) } : {}),
      required: true,
      after: c.after.map((dep) => `check:${dep}`),
    },
  ],
});
