/**
 * `actions` (gate item `<rule>:<id>`): nodes of the kinds a config registers itself with
 * `defineRule` (`rules`). Their rules come from the config, not from this registry; everything else
 * (inputs, `after`, labels) works as for a built-in kind.
 */
import { selectorIssues } from '../../src/capture/selector.js';
import { defineKind, repeatedDependency } from '../../src/config/kind.js';
import { didYouMean } from '../../src/text/suggest.js';
import type { Issue } from '../../src/errors.js';
import { ActionSchema } from './schema.js';

export const actionsKind = defineKind({
  name: 'actions',
  section: 'actions',
  entry: ActionSchema,
  rules: {},
  label: (a) => `${a.rule}:${a.id}`,
  validate(actions, manifest) {
    const issues: Omit<Issue, 'file'>[] = [];
    const ruleKinds = new Set(((manifest.rules as { kind: string }[] | undefined) ?? []).map((r) => r.kind));
    const checkIds = new Set(((manifest.checks as { id: string }[] | undefined) ?? []).map((c) => c.id));
    const labels = new Set(actions.map((a) => `${a.rule}:${a.id}`));
    actions.forEach((a, i) => {
      if (!ruleKinds.has(a.rule))
        issues.push({
          path: `actions[${i}].rule`,
          message: `Expected the kind of a rule registered in \`rules\`, got \`${a.rule}\`${didYouMean(a.rule, ruleKinds)}`,
        });
      a.after.forEach((dep, j) => {
        const path = `actions[${i}].after[${j}]`;
        const first = a.after.indexOf(dep);
        if (first < j) issues.push(repeatedDependency(path, dep, first));
        else if (!checkIds.has(dep) && !labels.has(`${a.rule}:${dep}`))
          issues.push({
            path,
            message: `Expected the id of a declared check or action, got \`${dep}\`${didYouMean(dep, [...checkIds, ...actions.map((x) => x.id)])}`,
          });
      });
    });
    return issues;
  },
  open: (a, at, ctx) => selectorIssues(a.inputs, ctx.files, `${at}.inputs`, ctx.shown, ctx.ignored),
  expand: (a, labels) => [
    {
      label: `${a.rule}:${a.id}`,
      kind: a.rule,
      id: a.id,
      attrs: a.attrs,
      inputs: a.inputs,
      declared: true,
      required: true,
      // An `after` id names a check when one has it, else an action of the same rule.
      after: a.after.map((dep) => (labels.has(`check:${dep}`) ? `check:${dep}` : `${a.rule}:${dep}`)),
    },
  ],
});
