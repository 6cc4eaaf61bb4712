/**
 * The command table: vkit's own verbs, in the order `vkit --help` lists them, then the verbs each
 * installed kind adds (`allVerbs`; one in a group already listed joins it), each bound to a handler that is imported only when the verb
 * runs. Parsing (`kit/verb.ts`), `vkit --help`, `vkit <verb> --help`, unknown commands and the
 * CLI table in docs/cli.md (`npm run docs:cli`) all come from here.
 */
import { loadKinds } from '../config/kind.js';
import { bindVerb as bind, type Spec, type Verb } from '../kit/verb.js';
import * as buildVerbs from './verbs/build.js';
import * as faces from './verbs/faces.js';
import * as runVerbs from './verbs/runs.js';
import * as storeVerbs from './verbs/store.js';
import * as cache from './verbs/cache.js';
import * as daemon from './verbs/daemon.js';
import * as doctorVerbs from './verbs/doctor.js';
import * as evidence from './verbs/evidence.js';
import * as feedback from './verbs/feedback.js';
import * as fleet from './verbs/fleet.js';
import * as formal from './verbs/formal.js';
import * as image from './verbs/image.js';
import * as reportVerbs from './verbs/report.js';

const commands = () => import('./commands.js');

export const TABLE: readonly Verb[] = [
  bind(buildVerbs.build, async () => (await commands()).build),
  bind(buildVerbs.gate, async () => (await commands()).gate),
  bind(buildVerbs.verify, async () => (await commands()).verify),
  bind(reportVerbs.report, async () => (await import('./report/command.js')).report),
  bind(runVerbs.runs, async () => (await commands()).runs),
  bind(runVerbs.runShow, async () => (await commands()).runShow),
  bind(runVerbs.runWait, async () => (await commands()).runWait),
  bind(runVerbs.runCancel, async () => (await commands()).runCancel),
  bind(runVerbs.runRetry, async () => (await commands()).runRetry),
  bind(storeVerbs.init, async () => (await commands()).init),
  bind(storeVerbs.storeGc, async () => (await commands()).storeGc),
  bind(evidence.exportBundle, async () => (await import('./evidence.js')).exportBundle),
  bind(evidence.replay, async () => (await import('./evidence.js')).replay),
  bind(formal.policyAccept, async () => (await import('./formal.js')).policyAccept),
  bind(formal.packageDigest, async () => (await import('./formal.js')).packageDigest),
  bind(cache.trustSigner, async () => (await import('./cache.js')).trustSigner),
  bind(cache.cacheStatus, async () => (await import('./cache.js')).cacheStatus),
  bind(cache.cachePush, async () => (await import('./cache.js')).cachePush),
  bind(fleet.worker, async () => (await import('./fleet.js')).worker),
  bind(feedback.add, async () => (await import('./feedback.js')).add),
  bind(feedback.list, async () => (await import('./feedback.js')).list),
  bind(faces.watch, async () => (await import('./watch.js')).watch),
  bind(faces.mcp, async () => {
    // The SDK and zod are optional packages: a project without them gets the command that installs them.
    const { MCP, requireOptional } = await import('../config/optional-package.js');
    await requireOptional(MCP);
    const { serveMcp } = await import('../mcp/server.js');
    return ({ values, version }) => serveMcp(values, version);
  }),
  bind(faces.tui, async () => (await import('./tui.js')).tui),
  bind(daemon.start, async () => (await import('./daemon.js')).start),
  bind(daemon.stop, async () => (await import('./daemon.js')).stop),
  bind(daemon.status, async () => (await import('./daemon.js')).status),
  bind(doctorVerbs.doctor, async () => (await import('./doctor.js')).doctor),
  bind(image.imageBuild, async () => (await import('./image.js')).imageBuild),
];

/**
 * vkit's own verbs, then the installed kinds' (the registry is loaded for them). A kind's verb in a
 * group already listed (`formal qualify`, beside vkit's `formal package`) joins it, after its last verb.
 */
export async function allVerbs(): Promise<readonly Verb[]> {
  const registry = await loadKinds();
  const verbs = [...TABLE];
  for (const verb of registry.kinds.flatMap((k) => k.verbs ?? [])) {
    const [group, sub] = verb.spec.name.split(' ');
    const inGroup = verbs.map((v) => sub !== undefined && v.spec.name.startsWith(`${group} `));
    const last = inGroup.lastIndexOf(true);
    verbs.splice(last === -1 ? verbs.length : last + 1, 0, verb);
  }
  return verbs;
}

/** The first words of the verbs named by two or more: `run`, `store`, `acceptance`, ... */
function groupsOf(verbs: readonly Verb[]): Set<string> {
  return new Set(verbs.flatMap((verb) => (verb.spec.name.includes(' ') ? [verb.spec.name.split(' ')[0]!] : [])));
}

export type Resolved =
  /** A group without a verb (`vkit acceptance`), or asked for help (`vkit acceptance --help`). */
  | { kind: 'group'; help: boolean }
  /** `name` is what the command line asked for; `verb` is absent when the table has no such verb. */
  | { kind: 'verb'; name: string; verb: Verb | undefined; args: string[] };

/** Splits a command line (without `vkit`, not empty) into its verb among `verbs` and the verb's arguments. */
export function resolveVerb(argv: string[], verbs: readonly Verb[]): Resolved {
  const [first, second] = argv;
  const named = (name: string) => verbs.find((v) => v.spec.name === name);
  if (!groupsOf(verbs).has(first!)) return { kind: 'verb', name: first!, verb: named(first!), args: argv.slice(1) };
  if (second === undefined || second === '--help' || second === '-h')
    return { kind: 'group', help: second !== undefined };
  const name = `${first} ${second}`;
  return { kind: 'verb', name, verb: named(name), args: argv.slice(2) };
}

/**
 * `vkit --help`: one line per verb, a group with a heading as one block. Summaries start in column
 * 16, or two spaces after the longest label of the verb's group.
 */
export function mainHelp(verbs: readonly Verb[]): string {
  const label = (spec: Spec) => spec.label ?? spec.name;
  const width = (group: string) =>
    Math.max(11, ...verbs.filter((v) => v.spec.name.startsWith(`${group} `)).map((v) => label(v.spec).length));
  const lines: string[] = [];
  const headed = new Set<string>();
  for (const { spec } of verbs) {
    const group = spec.name.split(' ')[0]!;
    // A group with a heading (given by one of its verbs) is listed as one block, indented.
    const heading = verbs.find((v) => v.spec.name.startsWith(`${group} `) && v.spec.heading)?.spec.heading;
    if (heading === undefined) lines.push(`  ${label(spec).padEnd(width(group))}  ${spec.summary}`);
    else if (!headed.has(group)) {
      headed.add(group);
      lines.push(`  ${group} <verb>  ${heading}`);
      for (const { spec: member } of verbs)
        if (member.name.startsWith(`${group} `))
          lines.push(`    ${member.name.slice(group.length + 1).padEnd(15)}  ${member.summary}`);
    }
  }
  return `vkit: a build system whose outputs are evidence.

Usage: vkit <command> [flags]

Commands:
${lines.join('\n')}

Run \`vkit <command> --help\` for a command's flags. \`vkit --version\` prints the version.

${buildVerbs.EXITS}`;
}

/**
 * A verb's synopsis: the first form of its help's usage, continuation lines joined, without
 * `[common flags]` (docs/cli.md says what they are below the table).
 */
export function synopsis(spec: Spec): string {
  const [first, ...rest] = spec.help.split('\n');
  const end = rest.findIndex((line) => !/^\s+\S/.test(line) || /^\s+vkit /.test(line));
  const continued = rest.slice(0, end === -1 ? rest.length : end);
  return [first!.replace(/^Usage: /, ''), ...continued.map((line) => line.trim())]
    .join(' ')
    .replace(' [common flags]', '');
}

/** The CLI table's page, relative to the repository, and the marker comments around the table there. */
export const CLI_TABLE_PAGE = 'docs/cli.md';
export const CLI_TABLE_START = '<!-- cli-table:start (npm run docs:cli writes this table from src/cli/table.ts) -->';
export const CLI_TABLE_END = '<!-- cli-table:end -->';

/** The CLI table of docs/cli.md: one row per verb, its synopsis and what it does. */
export function cliTable(verbs: readonly Verb[]): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const rows = verbs.map(({ spec }) => `| \`${cell(synopsis(spec))}\` | ${cell(spec.readme ?? spec.summary)} |`);
  return ['| command | what it does |', '|---|---|', ...rows].join('\n');
}
