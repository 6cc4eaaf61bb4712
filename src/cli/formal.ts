/** `vkit formal package digest [ID]` and `vkit policy accept`: parse flags, call the service, render. */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT, invalid } from '../errors.js';
import { BASE_FLAGS, parseFlags, printJson, type Command } from './args.js';

const packageDigest: Command = async (args) => {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { json: { type: 'boolean', default: false } },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw invalid('ERR_USAGE', (error as Error).message, {}, 'Usage: vkit formal package digest [ID] [--json]');
  }
  if (parsed.positionals.length > 1)
    throw invalid('ERR_USAGE', `Expected at most one package id, got ${parsed.positionals.length}`, { path: 'ID' });
  const { packageDigests } = await import('../formal/packages.js');
  const digests = packageDigests(parsed.positionals[0]);
  if (parsed.values.json) printJson({ schema: 'vkit.package-digests/1', packages: digests });
  else if (parsed.positionals[0] !== undefined && digests.length === 1) process.stdout.write(`${digests[0]!.sha256}\n`);
  else for (const d of digests) process.stdout.write(`${d.id} ${d.version} ${d.sha256}\n`);
  return EXIT.ok;
};

const policyAccept: Command = async (args) => {
  const v = parseFlags(args, { ...BASE_FLAGS, component: { type: 'string', multiple: true } });
  const { policyAccept: accept } = await import('../service/formal.js');
  const result = await accept(
    { root: v.root ? resolve(v.root) : process.cwd(), store: v.store },
    { components: v.component },
  );
  if (v.json) printJson(result);
  else {
    for (const a of result.accepted)
      process.stdout.write(
        `accepted ${a.component}${a.changed ? '' : ' (unchanged)'}: policy ${a.entry.policy_sha256} package ${a.entry.package_sha256} checker ${a.entry.checker_sha256}\n`,
      );
    for (const r of result.refused) process.stdout.write(`refused ${r.component}: ${r.reasons.join('; ')}\n`);
    process.stdout.write(
      `wrote ${result.lock}${result.refused.length ? `; ${result.refused.length} component(s) not accepted` : ''}\n`,
    );
  }
  return result.refused.length ? EXIT.blocked : EXIT.ok;
};

export const FORMAL_COMMANDS: Record<string, Command> = {
  'formal package': async (args, version) => {
    // `formal package digest`: a three-word verb under the `formal` group.
    if (args[0] !== 'digest')
      throw invalid(
        'ERR_USAGE',
        `Expected \`vkit formal package digest\`, got \`vkit formal package ${args[0] ?? ''}\``.trim(),
        { path: 'verb' },
      );
    return packageDigest(args.slice(1), version);
  },
  'policy accept': policyAccept,
};

export const FORMAL_HELP: Record<string, string> = {
  'formal package': `Usage: vkit formal package digest [ID] [--json]

Prints the identity of installed mathematical packages: sha256 over every file of the package
(sorted relative path, mode, sha256 of the raw bytes), the vkit-package.json manifest included.
With ID, the digest of that package (the value for a component's package.sha256); without, every
installed package as "ID VERSION DIGEST".

Exit codes: 0 printed, 2 unknown package, 3 a broken installed package, 4 internal error.
`,
  'policy accept': `Usage: vkit policy accept [--component ID]... [--root DIR] [--json]

Accepts the formal components' policy: writes vkit.lock.json at the root (commit it) with, per
component, the policy slice digest (its canonical manifest entry), the installed package digest,
the checker digest (the tool tree inside the worker image, hashed through the container engine),
the profile and when it was accepted. Changing any of them later makes the component BLOCKED
("renewed acceptance required") until it is accepted again. A component whose package, profile,
engine or assets cannot be resolved is refused, naming what is missing; nothing new is written for it
(an earlier entry stays, and still binds only what it accepted).

  --component ID   accept only these components (others keep their entries)

Exit codes: 0 all accepted, 2 invalid config or usage, 3 a component refused, 4 internal error.
`,
};
