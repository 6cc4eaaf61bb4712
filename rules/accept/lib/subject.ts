/**
 * Subject identity: recompute what a package's `[subject]` certifies from the bytes presented.
 *
 * - `digest`: the crate digest (stack/crate-digest.ts) of `[subject] root` must equal it.
 * - `[[subject.components]]` + aggregate `digest`: each component is checked like a subject of its
 *   own over the directory `<subject root>/<component name>` (or its own `root`, relative to
 *   --root), and the aggregate must equal the multi-part identity over the components as written.
 * - `commit` (+ `dirty`): the bytes are read from the `--tree COMMIT=DIR` directory, else from
 *   --root. When that repository has the commit, every file under the subject root must equal
 *   the commit's blob (a difference fails, naming the file). Without --tree the commit must be
 *   present in --root's repository: nothing else would tie the presented bytes to the commit, so
 *   its absence is an error, never a silent pass. With --tree and a DIR that cannot show the
 *   commit (its repository lacks it, or DIR is in no git repository) the check fails closed: it
 *   is indeterminate, naming the commit and DIR, unless the documents pin every file under the
 *   subject root in DIR with a recorded digest that matches DIR's bytes (evidence `inputs` and
 *   `build_inputs`, `record_hash`, a cited package's `manifest_hash`, an inventory element's
 *   crate digest); then a NOTE says exactly that, with the number of files. A file less (a
 *   document, a spec, an untracked build script) could be anything, and a claim's command reads
 *   whatever the subject root holds.
 * - `mode = "prospective"`: no identity, nothing to check.
 */
import { dirname, relative, resolve, sep } from 'node:path';
import { componentsDigest, parseM11, type M11Domain } from '../../../src/hash/index.js';
import type { DecisionContext } from './model.js';
import { insideRoot } from './paths.js';
import type { Findings } from './report.js';
import { crateDigest, digestCacheFor, DigestError } from './stack/crate-digest.js';
import {
  commitPresence,
  compareWithCommit,
  pinnedByRecordedDigests,
  treeFor,
  type CommitPresence,
  type Pinning,
  type RecordedDigests,
} from './stack/tree.js';
import { findWorkspace } from './stack/workspace.js';
import { isTable, str, tables, type Doc, type FieldPath, type Table } from './toml.js';
import { digestsDiffer } from './digests.js';

const COMMIT = /^[0-9a-f]{40}$/;
const short = (commit: string) => commit.slice(0, 12);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
/** A path under --root as messages show it. */
const shown = (root: string, abs: string) => relative(root, abs).split(sep).join('/') || '.';

/** The subject's directory relative to ctx.root: `[subject] root`, default the package file's directory. */
export function subjectRoot(pkg: Doc, ctx: DecisionContext, subject: Table | undefined): string | undefined {
  const given = str(subject, 'root');
  if (given !== undefined) return insideRoot(ctx.root, given) ? given : undefined;
  const rel = relative(ctx.root, dirname(resolve(pkg.abs)));
  return insideRoot(ctx.root, rel || '.') ? rel || '.' : undefined;
}

export async function verifySubject(pkg: Doc, ctx: DecisionContext, findings: Findings): Promise<void> {
  const subject = isTable(pkg.data.subject) ? (pkg.data.subject as Table) : undefined;
  if (!subject || str(subject, 'mode') === 'prospective') return;
  const rootRel = subjectRoot(pkg, ctx, subject);
  if (rootRel === undefined) {
    findings.error(`subject root \`${str(subject, 'root') ?? dirname(pkg.file)}\` is absolute or leaves --root`, [
      'subject',
      'root',
    ]);
    return;
  }
  const components = tables(subject, 'components');
  const recorded = () => recordedDigests(pkg, ctx, rootRel);
  if (components.length) {
    await verifyComponents(subject, components, rootRel, ctx, recorded, findings);
    return;
  }
  if (typeof subject.commit === 'string') {
    await verifyCommit(subject.commit, subject.dirty, rootRel, ctx, recorded, findings, ['subject']);
    return;
  }
  if (typeof subject.digest === 'string') await verifyDigest(subject.digest, rootRel, ctx, findings, ['subject']);
}

async function verifyDigest(
  recorded: string,
  rootRel: string,
  ctx: DecisionContext,
  findings: Findings,
  at: FieldPath,
): Promise<string | undefined> {
  const parsed = parseM11(recorded);
  if (parsed?.domain !== 'subject') {
    findings.error(`${label(at)} digest must be \`subject:sha-512:<128 hex>\`, got \`${recorded}\``, [...at, 'digest']);
    return undefined;
  }
  const dir = resolve(ctx.root, rootRel);
  try {
    // Inside a stack check (visiting set) the stores map is that check's own copy, so its cache
    // lives exactly as long as the check; a top-level subject is always digested afresh.
    const { digest } = await crateDigest(dir, ctx.visiting?.length ? digestCacheFor(ctx.stores) : undefined);
    if (digest !== recorded)
      findings.error(
        `${label(at)} digest does not match the bytes under \`${rootRel}\`: recorded and presented digests ${digestsDiffer(recorded, digest)}`,
        [...at, 'digest'],
      );
    return digest;
  } catch (error) {
    if (!(error instanceof DigestError)) throw error;
    findings.error(`${label(at)}: cannot digest \`${rootRel}\`: ${error.message}`, [...at, 'root']);
    return undefined;
  }
}

async function verifyCommit(
  commit: string,
  dirty: unknown,
  rootRel: string,
  ctx: DecisionContext,
  recorded: () => RecordedDigests,
  findings: Findings,
  at: FieldPath,
): Promise<void> {
  if (!COMMIT.test(commit)) {
    findings.error(`${label(at)} commit must be 40 lowercase hex, got \`${commit}\``, [...at, 'commit']);
    return;
  }
  if (dirty === true) {
    // A dirty subject names no commit's bytes; the decision check refuses it outright.
    findings.warn(`${label(at)} is dirty: the presented bytes are not checked against commit ${short(commit)}`, [
      ...at,
      'dirty',
    ]);
    return;
  }
  const tree = treeFor(ctx.trees, commit);
  const base = tree ?? ctx.root;
  const dir = resolve(base, rootRel);
  const presence = await commitPresence(base, commit);
  if (presence !== 'present') {
    if (tree) await verifyUnverifiableCommit(commit, presence, tree, rootRel, ctx, recorded(), findings, at);
    else
      findings.error(
        `${label(at)} commit ${short(commit)} is not in the git repository at --root, so the presented bytes cannot be tied to it; pass --tree ${short(commit)}=DIR naming a checkout`,
        [...at, 'commit'],
      );
    return;
  }
  try {
    const diffs = await compareWithCommit(dir, commit);
    for (const d of diffs)
      findings.error(
        `${label(at)} file \`${rootRel === '.' ? d.path : `${rootRel}/${d.path}`}\` ${d.problem === 'differs' ? `differs from commit ${short(commit)}` : d.problem === 'not in the commit' ? `is not in commit ${short(commit)}` : d.problem === 'missing from the tree' ? `of commit ${short(commit)} is missing from ${tree ? 'the --tree directory' : '--root'}` : `is not a file in commit ${short(commit)}`}`,
        [...at, 'commit'],
      );
  } catch (error) {
    if (!(error instanceof DigestError)) throw error;
    findings.error(`${label(at)}: cannot read \`${rootRel}\`: ${error.message}`, [...at, 'root']);
  }
}

/**
 * A --tree DIR that cannot show the commit: valid only when the documents pin every file under
 * the subject root in DIR (a NOTE says so, precisely); otherwise indeterminate, naming the
 * commit, DIR and the files nothing pins.
 */
async function verifyUnverifiableCommit(
  commit: string,
  presence: Exclude<CommitPresence, 'present'>,
  tree: string,
  rootRel: string,
  ctx: DecisionContext,
  recorded: RecordedDigests,
  findings: Findings,
  at: FieldPath,
): Promise<void> {
  const dir = shown(ctx.root, tree);
  const under = `${at.length > 1 ? 'the component root' : 'the subject root'} \`${rootRel}\``;
  let pinning: Pinning;
  try {
    pinning = await pinnedByRecordedDigests(tree, rootRel, recorded);
  } catch (error) {
    if (!(error instanceof DigestError)) throw error;
    findings.error(`${label(at)}: cannot read \`${rootRel}\` in --tree \`${dir}\`: ${error.message}`, [...at, 'root']);
    return;
  }
  if (pinning.total > 0 && pinning.unpinned.length === 0) {
    const lookup =
      presence === 'absent'
        ? `commit ${short(commit)} not present in the repository of --tree \`${dir}\``
        : `--tree \`${dir}\` is not in a git repository, so commit ${short(commit)} cannot be looked up`;
    findings.note(
      `tree checkout: ${lookup}; every file under ${under} there is an input named by the documents and was checked against its recorded digest over DIR's bytes: ${plural(pinning.total, 'file')}`,
      [...at, 'commit'],
    );
    return;
  }
  const why =
    presence === 'absent'
      ? `it is not present in the repository of --tree \`${dir}\``
      : `--tree \`${dir}\` is not in a git repository`;
  findings.indeterminate(
    `${label(at)} commit ${short(commit)} cannot be verified (${why}), and ${unpinnedText(pinning, under)}; pass --tree ${short(commit)}=DIR naming a checkout of that commit`,
    [...at, 'commit'],
  );
}

/** `2 of 5 files under X there have no recorded digest that matches: a, b (its recorded digest differs)`. */
function unpinnedText(p: Pinning, under: string): string {
  if (p.total === 0) return `${under} there holds no file`;
  const n = p.unpinned.length;
  const named = p.unpinned.slice(0, 3).map((u) => `${u.path}${u.differs ? ' (its recorded digest differs)' : ''}`);
  return `${n} of ${plural(p.total, 'file')} under ${under} there ${n === 1 ? 'has' : 'have'} no recorded digest that matches: ${named.join(', ')}${n > 3 ? ` and ${n - 3} more` : ''}`;
}

/**
 * The digests the package records over files, named relative to --root: evidence `inputs`
 * (domain subject) and `build_inputs` (artifact), relative to the subject root; `record_hash` and
 * a cited package's `manifest_hash`, relative to the package's directory; the crate digest of
 * each `path+` element of a Cargo.lock inventory, relative to the workspace the stack check
 * reads (the nearest Cargo.lock at or above the subject root). A malformed or misplaced entry is
 * the format or stack check's to report; here it only pins nothing.
 */
function recordedDigests(pkg: Doc, ctx: DecisionContext, rootRel: string): RecordedDigests {
  const subjectAbs = resolve(ctx.root, rootRel);
  const pkgDir = dirname(resolve(pkg.abs));
  const inRoot = (base: string, path: string) => insideRoot(ctx.root, relative(ctx.root, resolve(base, path)) || '.');
  const files: RecordedDigests['files'] = [];
  const add = (base: string, path: unknown, digest: unknown, domain: M11Domain) => {
    const abs = typeof path === 'string' && path ? inRoot(base, path) : undefined;
    if (abs && typeof digest === 'string' && parseM11(digest)?.domain === domain)
      files.push({ path: shown(ctx.root, abs), domain, digest });
  };
  for (const claim of tables(pkg.data, 'claim')) {
    for (const e of tables(claim, 'evidence')) {
      add(pkgDir, e.record, e.record_hash, 'record');
      add(pkgDir, e.manifest, e.manifest_hash, 'manifest');
      for (const i of tables(e, 'inputs')) add(subjectAbs, i.path, i.digest, 'subject');
      for (const i of tables(e, 'build_inputs')) add(subjectAbs, i.path, i.digest, 'artifact');
    }
  }
  const crates: RecordedDigests['crates'] = [];
  const ws = findWorkspace(ctx.root, subjectAbs);
  for (const inv of tables(pkg.data, 'inventory').filter((i) => str(i, 'source') === 'Cargo.lock')) {
    for (const el of tables(inv, 'element')) {
      const source = str(el, 'source');
      const digest = str(el, 'digest');
      const abs = ws && source?.startsWith('path+') ? inRoot(ws, source.slice('path+'.length)) : undefined;
      if (abs && digest && parseM11(digest)?.domain === 'subject') crates.push({ dir: shown(ctx.root, abs), digest });
    }
  }
  return { files, crates };
}

async function verifyComponents(
  subject: Table,
  components: Table[],
  rootRel: string,
  ctx: DecisionContext,
  recorded: () => RecordedDigests,
  findings: Findings,
): Promise<void> {
  const parts: { name: string; locator: string }[] = [];
  for (const [i, c] of components.entries()) {
    const at: FieldPath = ['subject', 'components', i];
    const name = str(c, 'name');
    if (!name) {
      findings.error(`subject component #${i + 1} has no name`, at);
      continue;
    }
    if (typeof c.commit === 'string') parts.push({ name, locator: `git-revision:${c.commit}` });
    else if (typeof c.digest === 'string') parts.push({ name, locator: `content-digest:${c.digest}` });
    else {
      findings.error(`subject component '${name}' needs a commit or a digest`, at);
      continue;
    }
    // A component's bytes are `<subject root>/<name>` unless it says `root` (relative to --root).
    const root = str(c, 'root') ?? (rootRel === '.' ? name : `${rootRel}/${name}`);
    if (!insideRoot(ctx.root, root)) {
      findings.error(`subject component '${name}': its directory \`${root}\` is absolute or leaves --root`, [
        ...at,
        'root',
      ]);
      continue;
    }
    if (typeof c.commit === 'string') await verifyCommit(c.commit, c.dirty, root, ctx, recorded, findings, at);
    else await verifyDigest(c.digest as string, root, ctx, findings, at);
  }
  if (parts.length !== components.length) return;
  const aggregate = componentsDigest(parts);
  if (typeof subject.digest !== 'string') findings.error('subject components need the aggregate `digest`', ['subject']);
  else if (subject.digest !== aggregate)
    findings.error(
      `subject aggregate digest does not match its components: recorded and computed digests ${digestsDiffer(String(subject.digest), aggregate)}`,
      ['subject', 'digest'],
    );
}

function label(at: FieldPath): string {
  return at.length > 1 ? `subject component #${Number(at[2]) + 1}` : 'subject';
}
