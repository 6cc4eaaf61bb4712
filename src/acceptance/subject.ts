/**
 * Subject identity: recompute what a package's `[subject]` certifies from the bytes presented.
 *
 * - `digest`: the crate digest (stack/crate-digest.ts) of `[subject] root` must equal it.
 * - `[[subject.components]]` + aggregate `digest`: each component is checked like a subject of its
 *   own over the directory `<subject root>/<component name>` (or its own `root`, relative to
 *   --root), and the aggregate must equal the multi-part identity over the components as written.
 * - `commit` (+ `dirty`): the bytes are read from the `--tree COMMIT=DIR` directory, else from
 *   --root. When that repository has the commit, every file under the subject root must equal
 *   the commit's blob (a difference fails, naming the file). With --tree and the commit absent,
 *   a NOTE says only the recorded digests were checked (a clone of another repository); without
 *   --tree the commit must be present in --root's repository: nothing else would tie the
 *   presented bytes to the commit, so its absence is an error, never a silent pass.
 * - `mode = "prospective"`: no identity, nothing to check.
 */
import { dirname, relative, resolve } from 'node:path';
import { componentsDigest, parseM11 } from '../hash/index.js';
import type { DecisionContext } from './model.js';
import { insideRoot } from './paths.js';
import type { Findings } from './report.js';
import { crateDigest, digestCacheFor, DigestError } from './stack/crate-digest.js';
import { compareWithCommit, hasCommit, treeFor } from './stack/tree.js';
import { isTable, str, tables, type Doc, type FieldPath, type Table } from './toml.js';

const COMMIT = /^[0-9a-f]{40}$/;
const short = (commit: string) => commit.slice(0, 12);

/** The subject's directory relative to ctx.root: `[subject] root`, default the package file's directory. */
export function subjectRoot(pkg: Doc, ctx: DecisionContext, subject: Table | undefined): string | undefined {
  const given = str(subject, 'root');
  if (given !== undefined) return insideRoot(ctx.root, given) ? given : undefined;
  const rel = relative(ctx.root, dirname(resolve(pkg.abs)));
  return insideRoot(ctx.root, rel || '.') ? rel || '.' : undefined;
}

export async function verifySubject(pkg: Doc, ctx: DecisionContext, findings: Findings): Promise<void> {
  const subject = isTable(pkg.data['subject']) ? (pkg.data['subject'] as Table) : undefined;
  if (!subject || str(subject, 'mode') === 'prospective') return;
  const rootRel = subjectRoot(pkg, ctx, subject);
  if (rootRel === undefined) {
    findings.error(`subject root \`${str(subject, 'root') ?? dirname(pkg.file)}\` is absolute or leaves --root`, ['subject', 'root']);
    return;
  }
  const components = tables(subject, 'components');
  if (components.length) {
    await verifyComponents(subject, components, rootRel, ctx, findings);
    return;
  }
  if (typeof subject['commit'] === 'string') {
    await verifyCommit(subject['commit'], subject['dirty'], rootRel, ctx, findings, ['subject']);
    return;
  }
  if (typeof subject['digest'] === 'string') await verifyDigest(subject['digest'], rootRel, ctx, findings, ['subject']);
}

async function verifyDigest(recorded: string, rootRel: string, ctx: DecisionContext, findings: Findings, at: FieldPath): Promise<string | undefined> {
  const parsed = parseM11(recorded);
  if (!parsed || parsed.domain !== 'subject') {
    findings.error(`${label(at)} digest must be \`subject:sha-512:<128 hex>\`, got \`${recorded}\``, [...at, 'digest']);
    return undefined;
  }
  const dir = resolve(ctx.root, rootRel);
  try {
    // Inside a stack check (visiting set) the stores map is that check's own copy, so its cache
    // lives exactly as long as the check; a top-level subject is always digested afresh.
    const { digest } = await crateDigest(dir, ctx.visiting?.length ? digestCacheFor(ctx.stores) : undefined);
    if (digest !== recorded) findings.error(`${label(at)} digest does not match the bytes under \`${rootRel}\`: recorded ${recorded.slice(0, 32)}..., presented ${digest.slice(0, 32)}...`, [...at, 'digest']);
    return digest;
  } catch (error) {
    if (!(error instanceof DigestError)) throw error;
    findings.error(`${label(at)}: cannot digest \`${rootRel}\`: ${error.message}`, [...at, 'root']);
    return undefined;
  }
}

async function verifyCommit(commit: string, dirty: unknown, rootRel: string, ctx: DecisionContext, findings: Findings, at: FieldPath): Promise<void> {
  if (!COMMIT.test(commit)) {
    findings.error(`${label(at)} commit must be 40 lowercase hex, got \`${commit}\``, [...at, 'commit']);
    return;
  }
  if (dirty === true) {
    // A dirty subject names no commit's bytes; the decision check refuses it outright.
    findings.warn(`${label(at)} is dirty: the presented bytes are not checked against commit ${short(commit)}`, [...at, 'dirty']);
    return;
  }
  const tree = treeFor(ctx.trees, commit);
  const base = tree ?? ctx.root;
  const dir = resolve(base, rootRel);
  if (!(await hasCommit(base, commit))) {
    if (tree) findings.note(`tree checkout: commit ${short(commit)} not present in this repository; recorded digests checked`, [...at, 'commit']);
    else findings.error(`${label(at)} commit ${short(commit)} is not in the git repository at --root, so the presented bytes cannot be tied to it; pass --tree ${short(commit)}=DIR naming a checkout`, [...at, 'commit']);
    return;
  }
  try {
    const diffs = await compareWithCommit(dir, commit);
    for (const d of diffs) findings.error(`${label(at)} file \`${rootRel === '.' ? d.path : `${rootRel}/${d.path}`}\` ${d.problem === 'differs' ? `differs from commit ${short(commit)}` : d.problem === 'not in the commit' ? `is not in commit ${short(commit)}` : d.problem === 'missing from the tree' ? `of commit ${short(commit)} is missing from ${tree ? 'the --tree directory' : '--root'}` : `is not a file in commit ${short(commit)}`}`, [...at, 'commit']);
  } catch (error) {
    if (!(error instanceof DigestError)) throw error;
    findings.error(`${label(at)}: cannot read \`${rootRel}\`: ${error.message}`, [...at, 'root']);
  }
}

async function verifyComponents(subject: Table, components: Table[], rootRel: string, ctx: DecisionContext, findings: Findings): Promise<void> {
  const parts: { name: string; locator: string }[] = [];
  for (const [i, c] of components.entries()) {
    const at: FieldPath = ['subject', 'components', i];
    const name = str(c, 'name');
    if (!name) {
      findings.error(`subject component #${i + 1} has no name`, at);
      continue;
    }
    if (typeof c['commit'] === 'string') parts.push({ name, locator: `git-revision:${c['commit']}` });
    else if (typeof c['digest'] === 'string') parts.push({ name, locator: `content-digest:${c['digest']}` });
    else {
      findings.error(`subject component '${name}' needs a commit or a digest`, at);
      continue;
    }
    // A component's bytes are `<subject root>/<name>` unless it says `root` (relative to --root).
    const root = str(c, 'root') ?? (rootRel === '.' ? name : `${rootRel}/${name}`);
    if (!insideRoot(ctx.root, root)) {
      findings.error(`subject component '${name}': its directory \`${root}\` is absolute or leaves --root`, [...at, 'root']);
      continue;
    }
    if (typeof c['commit'] === 'string') await verifyCommit(c['commit'], c['dirty'], root, ctx, findings, at);
    else await verifyDigest(c['digest'] as string, root, ctx, findings, at);
  }
  if (parts.length !== components.length) return;
  const aggregate = componentsDigest(parts);
  if (typeof subject['digest'] !== 'string') findings.error('subject components need the aggregate `digest`', ['subject']);
  else if (subject['digest'] !== aggregate) findings.error(`subject aggregate digest does not match its components: recorded ${String(subject['digest']).slice(0, 32)}..., computed ${aggregate.slice(0, 32)}...`, ['subject', 'digest']);
}

function label(at: FieldPath): string {
  return at.length > 1 ? `subject component #${Number(at[2]) + 1}` : 'subject';
}
