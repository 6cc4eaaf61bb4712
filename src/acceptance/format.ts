/**
 * The format validator (acceptance-details.md §2): is an `acceptance.toml` well formed, do its
 * records hold the bytes they name, and are its weights honestly granted? It reads files (records,
 * inputs, cited packages) but never runs anything. Findings carry field paths, so every message
 * points at a line. A validator PASS says the document is sound, never that anything is accepted.
 *
 * Paths: records, `[spec] path` and cited packages are relative to the package file's directory
 * (as in the reference tools); evidence `inputs` are relative to the subject root (`[subject] root`,
 * relative to --root, default the package file's directory). Every one must stay inside --root,
 * symbolic links included; absolute or escaping paths are errors.
 */
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { InvalidInputError } from '../errors.js';
import { evidenceFiles, FileReads } from './file-reads.js';
import { m11Digest, parseM11, type M11Domain } from '../hash/index.js';
import type { ClaimView, EvidenceView, FormatOptions, FormatResult, SelfVerify, Tier } from './model.js';
import { datesOutside, unknownKeys as reportUnknownKeys } from './keys.js';
import { insideRoot } from './paths.js';
import { resolveProfile, type ResolvedProfile } from './profiles.js';
import { Findings, type Finding, type Verdict } from './report.js';
import { claimTier, FAMILY_CEILING, isTier, recordTier, REFERENCE_FAMILY, tierRank, weaker } from './tiers.js';
import { isTable, parseDoc, str, table, tables, type Doc, type FieldPath, type Table } from './toml.js';
import { FORMAT_ID, PROTOCOL_ID, refuseVersion03 } from './versions.js';
import { CLAUSE_SOURCES, GRADES, validBounds, watchedFailProblems, weightRefusals } from './weight.js';

/** Keys each table may carry. Anything else is an ERROR naming the key: a field vkit does not
 * understand might carry a promise vkit does not check (fail closed). The protocol tables of a
 * package (`[specification]`, `[[deviation]]`, `[[inventory]]`) are checked by check-package. */
const KEYS = {
  top: ['format', 'subject', 'spec', 'specification', 'coverage', 'claim', 'deviation', 'inventory'],
  format: ['id', 'profile', 'protocol', 'generated_at', 'generated_by'],
  subject: [
    'name',
    'kind',
    'root',
    'mode',
    'commit',
    'dirty',
    'digest',
    'components',
    'read_at_commit',
    'read_at_digest',
  ],
  component: ['name', 'root', 'commit', 'dirty', 'digest'],
  spec: ['path', 'version', 'axis'],
  /** The binding to the specification document (its values are checked by check-package). */
  specification: ['id', 'hash', 'requirements_total'],
  coverage: ['claims_total'],
  claim: [
    'id',
    'clause',
    'item',
    'statement',
    'status',
    'weight',
    'grade',
    'bounds',
    'clause_source',
    'supersedes',
    'scope_ref',
    'gap_reason',
    'parked_reason',
    'blocked_by',
    'applicability_reason',
    'captured_at_commit',
    'self_verify',
    'evidence',
  ],
  self_verify: ['command', 'expect', 'expect_stream', 'positive_control', 'watched_fail'],
  evidence: [
    'kind',
    'family',
    'method',
    'ref',
    'result',
    'tool',
    'record',
    'record_hash',
    'epistemic_tier',
    'captured_at_commit',
    'author',
    'bounds',
    'cases',
    'generator',
    'reviewer',
    'inputs',
    'build_inputs',
    'toolchain',
    'control',
    'manifest',
    'manifest_hash',
    'claim',
  ],
  input: ['path', 'digest'],
  toolchain: ['name', 'version', 'digest', 'commit'],
  control: ['kind', 'expectation', 'observed', 'of_claim'],
  inventory: ['id', 'relation', 'source', 'completeness', 'element'],
  /** `boundary = "<reason>"`: the element is declared outside the checked boundary (listed, never accepted). */
  inventory_element: ['name', 'version', 'source', 'digest', 'binding', 'boundary'],
} as const;

/** Fields (paths without array indices) that take a TOML date or time as well as its text. */
const DATE_FIELDS = ['format.generated_at', 'claim.self_verify.watched_fail.date'];

const STATUSES = ['evidenced', 'partial', 'gap', 'parked', 'blocked', 'not-applicable'] as const;
/** Statuses that say no check succeeded: no evidence, and the field that says why. */
export const REASON_FIELD: Readonly<Record<string, string>> = {
  gap: 'gap_reason',
  parked: 'parked_reason',
  blocked: 'blocked_by',
  'not-applicable': 'applicability_reason',
};
/** Which grades each status may carry (a gap cannot be a proof). */
const COHERENT: Readonly<Record<string, readonly string[]>> = {
  evidenced: ['contract', 'probe', 'test-only', 'mechanical', 'inspection-argued', 'ungraded'],
  partial: ['contract', 'probe', 'test-only', 'mechanical', 'inspection-argued', 'ungraded'],
  gap: ['not-covered', 'out-of-scope', 'unspecified', 'ungraded'],
  parked: ['not-covered', 'out-of-scope', 'unspecified', 'ungraded'],
  blocked: ['not-covered', 'out-of-scope', 'unspecified', 'ungraded'],
  'not-applicable': ['out-of-scope'],
};
const RESULTS = ['pass', 'fail', 'unsupported'];
const STREAMS = ['stdout', 'stderr', 'combined'];
const CONTROL_KINDS = ['mutation', 'ablation', 'planted-twin'];
const CONTROL_EXPECTATIONS = ['red', 'green', 'sat'];
const COMMIT = /^[0-9a-f]{40}$/;
const BARE = /^sha-512:[0-9a-fA-F]{128}$/;
const COMPONENT_NAME = /^[a-z0-9][a-z0-9._-]*$/;
const TOKEN = /^[a-z][a-z0-9-]*$/;
/** Citations between packages: at most five documents deep, as in the reference. */
const MAX_REFERENCE_DEPTH = 5;

interface Ctx {
  doc: Doc;
  opts: FormatOptions;
  f: Findings;
  /** The package file's directory: base of records, `[spec] path` and cited packages. */
  pkgDir: string;
  /** Base of evidence `inputs`; undefined when `[subject] root` is invalid (already reported). */
  subjectRoot?: string;
  profile?: ResolvedProfile;
  /** Manifest digests of the packages being validated (citation cycles). */
  stack: readonly string[];
  /** The command's reads: each file resolved, read and hashed once, whatever cites it. */
  files: FileReads;
  /** `base` NUL `rel` -> the path inside --root it names (null: absolute or outside), worked out once. */
  placed: Map<string, string | null>;
}

/** `opts.files` shares the reads of the command this validation is part of; else it reads afresh. */
export async function validateFormat(doc: Doc, opts: FormatOptions): Promise<FormatResult> {
  return validateAt(doc, opts, opts.files ?? new FileReads(), [m11Digest('manifest', doc.bytes)]);
}

async function validateAt(
  doc: Doc,
  opts: FormatOptions,
  files: FileReads,
  stack: readonly string[],
): Promise<FormatResult> {
  refuseVersion03(doc);
  const f = new Findings(doc.file, doc);
  const ctx: Ctx = { doc, opts, f, pkgDir: dirname(doc.abs), stack, files, placed: new Map() };
  const d = doc.data;
  unknownKeys(ctx, d, [], KEYS.top, 'the document');
  datesOutside(doc, f, DATE_FIELDS);
  if (isTable(d.specification))
    unknownKeys(ctx, d.specification, ['specification'], KEYS.specification, '[specification]');
  tables(d, 'inventory').forEach((inv, i) => {
    unknownKeys(ctx, inv, ['inventory', i], KEYS.inventory, `[[inventory]] ${i}`);
    tables(inv, 'element').forEach((el, j) =>
      unknownKeys(
        ctx,
        el,
        ['inventory', i, 'element', j],
        KEYS.inventory_element,
        `[[inventory.element]] ${j} of [[inventory]] ${i}`,
      ),
    );
  });
  checkFormat(ctx);
  const prospectiveMode = checkSubject(ctx);
  files.prefetch(evidenceFiles(d, ctx.pkgDir, ctx.subjectRoot, opts.root));
  await checkSpec(ctx);

  const rawClaims = d.claim;
  if (rawClaims !== undefined && !Array.isArray(rawClaims))
    f.error('claim must be an array of [[claim]] tables', ['claim']);
  const list = Array.isArray(rawClaims) ? rawClaims : [];
  const seen = new Set<string>();
  const claims: ClaimView[] = [];
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (!isTable(c)) {
      f.error(`claim[${i}] must be a table`, ['claim', i]);
      continue;
    }
    claims.push(await checkClaim(ctx, c, i, seen));
  }

  if (list.length === 0)
    f.error(
      'no [[claim]] tables: a document must make at least one claim',
      rawClaims === undefined ? undefined : ['claim'],
    );
  checkCoverage(ctx, list.length);
  ctx.profile?.rules.check?.(doc, f);

  const evidenced = claims.some((c) => c.status === 'evidenced' || c.status === 'partial');
  const prospective = prospectiveMode || !evidenced;
  let verdict: Verdict;
  if (f.errors > 0) verdict = 'FAIL';
  else if (f.indeterminateReasons.length > 0) verdict = 'INDETERMINATE';
  else if (claims.length > 0 && claims.every((c) => c.status === 'not-applicable')) {
    f.indeterminate('every claim is not-applicable: the document claims nothing that could be checked');
    verdict = 'INDETERMINATE';
  } else verdict = prospective ? 'PASS-PROSPECTIVE' : 'PASS';
  return { doc, verdict, findings: f, claims, prospective };
}

// ---------------------------------------------------------------------------------------------
// Small readers
// ---------------------------------------------------------------------------------------------

function unknownKeys(ctx: Ctx, t: Table, path: FieldPath, allowed: readonly string[], where: string): void {
  reportUnknownKeys(ctx.f, t, path, allowed, where);
}

const nonempty = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;
const show = (v: unknown) => JSON.stringify(v) ?? String(v);

/** A typed M11 digest field; reports what is wrong and returns the digest when it is usable. */
function digestField(ctx: Ctx, value: unknown, domain: M11Domain, label: string, path: FieldPath): string | undefined {
  if (typeof value === 'string' && BARE.test(value)) {
    ctx.f.error(`${label} uses the retired bare form 'sha-512:<hex>'; write '${domain}:sha-512:<128 hex>'`, path);
    return undefined;
  }
  const parsed = parseM11(value);
  if (!parsed) {
    ctx.f.error(`${label} must be '${domain}:sha-512:<128 lowercase hex>', got ${show(value)}`, path);
    return undefined;
  }
  if (parsed.domain !== domain) {
    ctx.f.error(`${label} is in domain '${parsed.domain}', expected '${domain}'`, path);
    return undefined;
  }
  return value as string;
}

/**
 * `rel` resolved against `base`, or undefined (reported) when it is not a nonempty relative path
 * or leaves --root. Symbolic links are followed for files that exist: a link out of the root
 * escapes it just the same.
 */
async function pathInRoot(
  ctx: Ctx,
  base: string,
  rel: unknown,
  label: string,
  path: FieldPath,
): Promise<string | undefined> {
  if (!nonempty(rel)) {
    ctx.f.error(`${label} must be a nonempty relative path`, path);
    return undefined;
  }
  const root = ctx.opts.root;
  const key = `${base}\u0000${rel}`;
  let inside = ctx.placed.get(key);
  if (inside === undefined) {
    const abs = isAbsolute(rel) ? undefined : resolve(base, rel);
    inside = (abs === undefined ? undefined : insideRoot(root, relative(root, abs) || '.')) ?? null;
    ctx.placed.set(key, inside);
  }
  if (!inside) {
    ctx.f.error(
      `${label} '${rel}' is ${isAbsolute(rel) ? 'absolute' : 'outside --root'}: paths in a document stay inside the root`,
      path,
    );
    return undefined;
  }
  // Missing (either undefined): the caller decides what a missing file means.
  const [real, realRoot] = await Promise.all([ctx.files.realpath(inside), ctx.files.realpath(root)]);
  if (real !== undefined && realRoot !== undefined) {
    const back = relative(realRoot, real);
    if (back === '..' || back.startsWith(`..${sep}`) || isAbsolute(back)) {
      ctx.f.error(`${label} '${rel}' leads outside --root through a symbolic link`, path);
      return undefined;
    }
  }
  return inside;
}

/** A missing record or input: a warning, an error under --strict (never INDETERMINATE). */
function missing(ctx: Ctx, message: string, path: FieldPath): void {
  if (ctx.opts.strict) ctx.f.error(message, path);
  else ctx.f.warn(message, path);
}

// ---------------------------------------------------------------------------------------------
// [format], [subject], [spec], [coverage]
// ---------------------------------------------------------------------------------------------

function checkFormat(ctx: Ctx): void {
  const fmt = ctx.doc.data.format;
  if (!isTable(fmt)) {
    ctx.f.error(`[format] table missing (id = "${FORMAT_ID}", profile = "acceptance/verification")`, ['format']);
    return;
  }
  unknownKeys(ctx, fmt, ['format'], KEYS.format, '[format]');
  if (fmt.id !== FORMAT_ID) ctx.f.error(`[format].id must be "${FORMAT_ID}", got ${show(fmt.id)}`, ['format', 'id']);
  if (fmt.protocol !== undefined && fmt.protocol !== PROTOCOL_ID)
    ctx.f.error(`[format].protocol must be "${PROTOCOL_ID}" when present, got ${show(fmt.protocol)}`, [
      'format',
      'protocol',
    ]);
  for (const k of ['generated_at', 'generated_by'])
    if (fmt[k] !== undefined && typeof fmt[k] !== 'string')
      ctx.f.error(`[format].${k} must be a string`, ['format', k]);
  const profile = resolveProfile(fmt.profile);
  if ('error' in profile) ctx.f.error(profile.error, ['format', 'profile']);
  else ctx.profile = profile;
}

/** Returns whether the subject is prospective; sets the subject root. */
function checkSubject(ctx: Ctx): boolean {
  const s = ctx.doc.data.subject;
  ctx.subjectRoot = ctx.pkgDir;
  if (!isTable(s)) {
    ctx.f.error('[subject] table missing (name, kind, and one certified identity)', ['subject']);
    return false;
  }
  const p = (k: string): FieldPath => ['subject', k];
  unknownKeys(ctx, s, ['subject'], KEYS.subject, '[subject]');
  if (!nonempty(s.name)) ctx.f.error('[subject].name must be a nonempty string', p('name'));
  if (typeof s.kind !== 'string' || !TOKEN.test(s.kind))
    ctx.f.error(
      `[subject].kind must be a kind token such as tool, doc, rust-crate, npm-package or other, got ${show(s.kind)}`,
      p('kind'),
    );
  if (s.root !== undefined) {
    const root = typeof s.root === 'string' && s.root.length > 0 ? insideRoot(ctx.opts.root, s.root) : undefined;
    if (!root) {
      ctx.f.error(`[subject].root ${show(s.root)} must be a relative directory inside --root`, p('root'));
      ctx.subjectRoot = undefined;
    } else ctx.subjectRoot = root;
  }
  const mode = s.mode ?? 'retrospective';
  if (mode !== 'retrospective' && mode !== 'prospective')
    ctx.f.error(`[subject].mode must be retrospective or prospective, got ${show(s.mode)}`, p('mode'));

  if (mode === 'prospective') {
    for (const k of ['commit', 'dirty', 'digest', 'components'])
      if (s[k] !== undefined) ctx.f.error(`[subject].${k}: a prospective subject carries no certified identity`, p(k));
    const reads = ['read_at_commit', 'read_at_digest'].filter((k) => s[k] !== undefined);
    if (reads.length !== 1)
      ctx.f.error(
        'a prospective [subject] needs exactly one of read_at_commit and read_at_digest (a value or "unpinned")',
        ['subject'],
      );
    if (
      s.read_at_commit !== undefined &&
      s.read_at_commit !== 'unpinned' &&
      !(typeof s.read_at_commit === 'string' && COMMIT.test(s.read_at_commit))
    ) {
      ctx.f.error(
        `[subject].read_at_commit must be 40 lowercase hex characters or "unpinned", got ${show(s.read_at_commit)}`,
        p('read_at_commit'),
      );
    }
    if (s.read_at_digest !== undefined && s.read_at_digest !== 'unpinned')
      digestField(ctx, s.read_at_digest, 'subject', '[subject].read_at_digest', p('read_at_digest'));
    return true;
  }

  for (const k of ['read_at_commit', 'read_at_digest'])
    if (s[k] !== undefined) ctx.f.error(`[subject].${k} belongs to a prospective subject (mode = "prospective")`, p(k));
  const forms = [
    s.commit !== undefined && 'commit',
    s.components !== undefined ? 'components' : s.digest !== undefined && 'digest',
  ].filter(Boolean);
  if (forms.length === 0)
    ctx.f.error(
      '[subject] needs exactly one certified identity: commit + dirty, digest = "subject:sha-512:...", or [[subject.components]] + aggregate digest',
      ['subject'],
    );
  else if (forms.length > 1)
    ctx.f.error(`[subject] carries more than one certified identity (${forms.join(' and ')}); keep exactly one`, [
      'subject',
    ]);
  if (s.commit !== undefined) {
    if (typeof s.commit !== 'string' || !COMMIT.test(s.commit))
      ctx.f.error(`[subject].commit must be 40 lowercase hex characters, got ${show(s.commit)}`, p('commit'));
    if (typeof s.dirty !== 'boolean')
      ctx.f.error(`[subject].dirty must be true or false beside commit, got ${show(s.dirty)}`, p('dirty'));
  } else if (s.dirty !== undefined) ctx.f.error('[subject].dirty belongs beside commit', p('dirty'));
  if (s.components !== undefined) checkComponents(ctx, s);
  else if (s.digest !== undefined) {
    digestField(ctx, s.digest, 'subject', '[subject].digest', p('digest'));
    ctx.f.note(
      '[subject].digest is not recomputed by `check`; check-package and check-decision recompute it from the subject root',
    );
  }
  return false;
}

/** Multi-part identity: one line per component, sorted bytewise by name, hashed in domain subject. */
function checkComponents(ctx: Ctx, s: Table): void {
  const comps = s.components;
  if (!Array.isArray(comps) || comps.length === 0 || !comps.every(isTable)) {
    ctx.f.error('[[subject.components]] must be a nonempty array of tables', ['subject', 'components']);
    return;
  }
  const lines: { name: string; line: string }[] = [];
  const names = new Set<string>();
  comps.forEach((c, i) => {
    const at = (k?: string): FieldPath => (k ? ['subject', 'components', i, k] : ['subject', 'components', i]);
    unknownKeys(ctx, c, ['subject', 'components', i], KEYS.component, `[[subject.components]] ${i}`);
    const name = c.name;
    if (typeof name !== 'string' || !COMPONENT_NAME.test(name)) {
      ctx.f.error(`subject component ${i}: name must match [a-z0-9][a-z0-9._-]*, got ${show(name)}`, at('name'));
      return;
    }
    if (names.has(name)) ctx.f.error(`subject component '${name}' appears twice`, at('name'));
    names.add(name);
    if ((c.commit === undefined) === (c.digest === undefined)) {
      ctx.f.error(`subject component '${name}' needs exactly one of commit and digest`, at());
      return;
    }
    if (c.commit !== undefined) {
      if (typeof c.commit !== 'string' || !COMMIT.test(c.commit))
        ctx.f.error(`subject component '${name}': commit must be 40 lowercase hex characters`, at('commit'));
      else lines.push({ name, line: `${name}=git-revision:${c.commit}` });
      if (c.dirty !== undefined && typeof c.dirty !== 'boolean')
        ctx.f.error(`subject component '${name}': dirty must be true or false`, at('dirty'));
    } else {
      const d = digestField(ctx, c.digest, 'subject', `subject component '${name}' digest`, at('digest'));
      if (d) lines.push({ name, line: `${name}=content-digest:${d}` });
    }
  });
  if (s.digest === undefined) {
    ctx.f.error('[[subject.components]] need the aggregate [subject].digest', ['subject']);
    return;
  }
  const declared = digestField(ctx, s.digest, 'subject', '[subject].digest', ['subject', 'digest']);
  if (!declared || lines.length !== comps.length) return;
  const cmp = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  const listing = lines
    .sort((a, b) => cmp(a.name, b.name))
    .map((l) => `${l.line}\n`)
    .join('');
  if (m11Digest('subject', listing) !== declared)
    ctx.f.error(
      '[subject].digest is not the digest of its components (one line per component, sorted by name, domain subject)',
      ['subject', 'digest'],
    );
}

async function checkSpec(ctx: Ctx): Promise<void> {
  const spec = ctx.doc.data.spec;
  if (!isTable(spec)) {
    ctx.f.error('[spec] table missing (path and version of the specification the claims answer)', ['spec']);
    return;
  }
  unknownKeys(ctx, spec, ['spec'], KEYS.spec, '[spec]');
  if (!nonempty(spec.version)) ctx.f.error('[spec].version must be a nonempty string', ['spec', 'version']);
  if (spec.axis !== undefined && !nonempty(spec.axis))
    ctx.f.error('[spec].axis must be a nonempty string when present', ['spec', 'axis']);
  const abs = await pathInRoot(ctx, ctx.pkgDir, spec.path, '[spec].path', ['spec', 'path']);
  if (abs && !(await ctx.files.bytes(abs)))
    ctx.f.indeterminate(
      `[spec].path '${spec.path as string}' cannot be read: the specification the claims answer is unresolvable`,
      ['spec', 'path'],
    );
}

function checkCoverage(ctx: Ctx, count: number): void {
  const cov = ctx.doc.data.coverage;
  if (cov === undefined) return;
  if (!isTable(cov)) {
    ctx.f.error('[coverage] must be a table', ['coverage']);
    return;
  }
  unknownKeys(ctx, cov, ['coverage'], KEYS.coverage, '[coverage]');
  const total = cov.claims_total;
  if (total === undefined) return;
  if (typeof total !== 'number' || !Number.isInteger(total) || total < 0)
    ctx.f.error(`[coverage].claims_total must be a whole number, got ${show(total)}`, ['coverage', 'claims_total']);
  else if (total !== count)
    ctx.f.error(
      `[coverage].claims_total is ${total} but the document has ${count} [[claim]] table${count === 1 ? '' : 's'}`,
      ['coverage', 'claims_total'],
    );
}

// ---------------------------------------------------------------------------------------------
// [[claim]]
// ---------------------------------------------------------------------------------------------

async function checkClaim(ctx: Ctx, c: Table, i: number, seen: Set<string>): Promise<ClaimView> {
  const f = ctx.f;
  const findingsBefore = f.list.length;
  const at = (...k: (string | number)[]): FieldPath => ['claim', i, ...k];
  const id = nonempty(c.id) ? c.id : undefined;
  const label = id ? `claim '${id}'` : `claim[${i}]`;
  unknownKeys(ctx, c, ['claim', i], KEYS.claim, label);

  if (!id) f.error(`${label}: id must be a nonempty string`, at('id'));
  else if (seen.has(id))
    f.error(
      `${label}: duplicate claim id (ids are unique and never reused; a replacement takes a new id and supersedes)`,
      at('id'),
    );
  if (id) seen.add(id);
  for (const k of ['clause', 'statement'])
    if (!nonempty(c[k])) f.error(`${label}: ${k} must be a nonempty string`, at(k));
  for (const k of ['item', 'scope_ref'])
    if (c[k] !== undefined && !nonempty(c[k])) f.error(`${label}: ${k} must be a nonempty string when present`, at(k));
  if (c.supersedes !== undefined && (!nonempty(c.supersedes) || c.supersedes === id))
    f.error(`${label}: supersedes must name the id of the claim this one replaces`, at('supersedes'));
  if (
    c.captured_at_commit !== undefined &&
    !(typeof c.captured_at_commit === 'string' && COMMIT.test(c.captured_at_commit))
  )
    f.error(`${label}: captured_at_commit must be 40 lowercase hex characters`, at('captured_at_commit'));

  const status =
    typeof c.status === 'string' && (STATUSES as readonly string[]).includes(c.status) ? c.status : undefined;
  if (!status) f.error(`${label}: status must be one of ${STATUSES.join(', ')}, got ${show(c.status)}`, at('status'));
  const weighted = c.weight === 'weighted';
  if (c.weight !== undefined && c.weight !== 'weighted' && c.weight !== 'unweighted')
    f.error(
      `${label}: weight must be weighted or unweighted (absent means unweighted), got ${show(c.weight)}`,
      at('weight'),
    );

  const grade = typeof c.grade === 'string' && (GRADES as readonly string[]).includes(c.grade) ? c.grade : undefined;
  if (c.grade !== undefined && !grade)
    f.error(`${label}: grade must be one of ${GRADES.join(', ')}, got ${show(c.grade)}`, at('grade'));
  else if (c.grade === undefined && status !== 'not-applicable')
    f.error(`${label}: grade is required (one of ${GRADES.join(', ')})`, at());
  if (status && grade && !COHERENT[status]!.includes(grade)) {
    const msg = `${label}: status '${status}' does not cohere with grade '${grade}' (allowed at this status: ${COHERENT[status]!.join(', ')})`;
    if (weighted) f.error(msg, at('grade'));
    else f.warn(msg, at('grade'));
  }
  if (c.bounds !== undefined && !validBounds(c.bounds))
    f.error(
      `${label}: bounds must start with 'bounded' or 'unbounded' and then say what the limit was (e.g. 'bounded: 5 concrete input strings'), got ${show(c.bounds)}`,
      at('bounds'),
    );
  if (c.clause_source !== undefined) {
    if (typeof c.clause_source !== 'string' || !(CLAUSE_SOURCES as readonly string[]).includes(c.clause_source))
      f.error(
        `${label}: clause_source must be one of ${CLAUSE_SOURCES.join(', ')}, got ${show(c.clause_source)}`,
        at('clause_source'),
      );
    else if (c.clause_source === 'test-name')
      f.warn(
        `${label}: clause_source 'test-name': the clause and its evidence are the same artifact, so the test can never fail the requirement`,
        at('clause_source'),
      );
  }

  // Evidence and reasons by status.
  const rawEvidence = c.evidence;
  if (rawEvidence !== undefined && !Array.isArray(rawEvidence))
    f.error(`${label}: evidence must be an array of [[claim.evidence]] tables`, at('evidence'));
  const evList = Array.isArray(rawEvidence) ? rawEvidence : [];
  if (status === 'evidenced' || status === 'partial') {
    if (evList.length === 0)
      f.error(`${label}: status '${status}' needs at least one [[claim.evidence]] record`, at('status'));
  } else if (status) {
    if (evList.length > 0) f.error(`${label}: status '${status}' must have no evidence records`, at('evidence'));
    const reason = REASON_FIELD[status]!;
    if (!nonempty(c[reason])) f.error(`${label}: status '${status}' needs a nonempty ${reason}`, at('status'));
  }
  for (const [st, field] of Object.entries(REASON_FIELD))
    if (c[field] !== undefined && status !== st) f.error(`${label}: ${field} belongs to status '${st}'`, at(field));
  if (status === 'not-applicable' && weighted)
    f.error(`${label}: a not-applicable claim cannot ask for weight`, at('weight'));

  const selfVerify = checkSelfVerify(ctx, c, i, label);
  const evidence: EvidenceView[] = [];
  for (let j = 0; j < evList.length; j++) {
    const e = evList[j];
    if (!isTable(e)) {
      f.error(`${label} evidence[${j}] must be a table`, at('evidence', j));
      continue;
    }
    evidence.push(await checkEvidence(ctx, e, i, j, id, label));
  }

  const refusals = weightRefusals(c, evidence);
  const ownErrors = f.list.slice(findingsBefore).filter((x) => x.level === 'ERROR');
  for (const reason of refusals) {
    const msg = `${label}: WEIGHT REFUSED: ${reason}`;
    if (ctx.opts.strictWeight) f.error(msg, at('weight'));
    else f.warn(msg, at('weight'));
  }
  const sv = table(c, 'self_verify');
  const witnessed =
    (sv !== undefined && watchedFailProblems(sv).length === 0) || evidence.some((e) => e.witnessControl);
  return {
    index: i,
    id: id ?? `claim[${i}]`,
    clause: str(c, 'clause'),
    status: status ?? String(c.status),
    grade,
    weightRequested: weighted,
    // A claim with any error of its own is never weighted, whatever the rules say; the reason names the error.
    weightGranted: weighted && refusals.length === 0 && ownErrors.length === 0,
    weightRefusals: weighted && ownErrors.length ? [...refusals, ownErrorReason(ownErrors, label)] : refusals,
    tier: claimTier(evidence),
    evidence,
    witnessed,
    selfVerify,
  };
}

/** `the claim has an error of its own (line 27): unknown key 'x' (...) (and 1 more)`, the message without the claim's label. */
function ownErrorReason(errors: Finding[], label: string): string {
  const first = errors[0]!;
  const message = first.message.startsWith(label)
    ? first.message.slice(label.length).replace(/^:?\s*/, '')
    : first.message;
  return `the claim has an error of its own${first.line ? ` (line ${first.line})` : ''}: ${message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
}

function checkSelfVerify(ctx: Ctx, c: Table, i: number, label: string): SelfVerify | undefined {
  const raw = c.self_verify;
  if (raw === undefined) return undefined;
  const at = (...k: string[]): FieldPath => ['claim', i, 'self_verify', ...k];
  if (!isTable(raw)) {
    ctx.f.error(`${label}: self_verify must be a [claim.self_verify] table`, at());
    return undefined;
  }
  unknownKeys(ctx, raw, at(), KEYS.self_verify, `${label} self_verify`);
  for (const k of ['command', 'expect', 'expect_stream', 'positive_control'])
    if (raw[k] !== undefined && typeof raw[k] !== 'string')
      ctx.f.error(`${label}: self_verify.${k} must be a string`, at(k));
  const command = str(raw, 'command');
  const expect = str(raw, 'expect');
  if (command !== undefined && !command.trim())
    ctx.f.error(`${label}: self_verify.command must be nonempty`, at('command'));
  if (command?.trim() && !expect)
    ctx.f.error(`${label}: self_verify.command needs self_verify.expect: the output that means pass`, at('expect'));
  if (expect !== undefined && command === undefined)
    ctx.f.error(`${label}: self_verify.expect without a command`, at('expect'));
  const stream = raw.expect_stream ?? 'stdout';
  if (!STREAMS.includes(stream as string))
    ctx.f.error(
      `${label}: self_verify.expect_stream must be one of ${STREAMS.join(', ')} (default stdout), got ${show(raw.expect_stream)}`,
      at('expect_stream'),
    );
  if (raw.positive_control !== undefined && !nonempty(raw.positive_control))
    ctx.f.error(`${label}: self_verify.positive_control must be nonempty when present`, at('positive_control'));
  if (raw.watched_fail !== undefined) {
    for (const p of watchedFailProblems(raw))
      ctx.f.error(`${label}: ${p.message}`, p.key ? at('watched_fail', p.key) : at('watched_fail'));
  }
  if (!command?.trim() || !expect) return undefined;
  return {
    command,
    expect,
    expect_stream: STREAMS.includes(stream as string) ? (stream as SelfVerify['expect_stream']) : 'stdout',
    ...(nonempty(raw.positive_control) ? { positive_control: raw.positive_control } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// [[claim.evidence]]
// ---------------------------------------------------------------------------------------------

async function checkEvidence(
  ctx: Ctx,
  e: Table,
  i: number,
  j: number,
  claimId: string | undefined,
  claimLabel: string,
): Promise<EvidenceView> {
  const f = ctx.f;
  const label = `${claimLabel} evidence[${j}]`;
  const at = (...k: (string | number)[]): FieldPath => ['claim', i, 'evidence', j, ...k];
  unknownKeys(ctx, e, at(), KEYS.evidence, label);
  const family = str(e, 'family');
  const reference = family === REFERENCE_FAMILY;

  const required = reference
    ? ['kind', 'family', 'manifest', 'manifest_hash', 'claim']
    : ['kind', 'family', 'ref', 'tool', 'record'];
  for (const k of required) if (!nonempty(e[k])) f.error(`${label}: ${k} must be a nonempty string`, at(k));
  for (const k of ['method', 'ref', 'tool', 'author', 'generator', 'reviewer'])
    if (e[k] !== undefined && !nonempty(e[k])) f.error(`${label}: ${k} must be a nonempty string when present`, at(k));
  const result = str(e, 'result');
  if (!result || !RESULTS.includes(result))
    f.error(`${label}: result must be one of ${RESULTS.join(', ')}, got ${show(e.result)}`, at('result'));

  let ceiling: Tier | undefined;
  if (family !== undefined && !reference) {
    ceiling = FAMILY_CEILING[family];
    if (!ceiling)
      f.error(
        `${label}: unknown family '${family}' (one of ${[...Object.keys(FAMILY_CEILING), REFERENCE_FAMILY].join(', ')})`,
        at('family'),
      );
  }
  const kind = str(e, 'kind');
  if (kind && family && ctx.profile) {
    const expected = ctx.profile.rules.kinds[kind];
    if (expected === undefined)
      f.warn(
        `${label}: kind '${kind}' is not in the ${ctx.profile.rules.meaning} profile's registry; it is judged by its declared family '${family}'`,
        at('kind'),
      );
    else if (expected !== family)
      f.error(`${label}: kind '${kind}' belongs to family '${expected}', not '${family}'`, at('family'));
  }
  let declared: Tier | undefined;
  if (e.epistemic_tier !== undefined) {
    if (!isTier(e.epistemic_tier))
      f.error(
        `${label}: epistemic_tier must be one of T1, T2, T3, T4, T5, got ${show(e.epistemic_tier)}`,
        at('epistemic_tier'),
      );
    else {
      declared = e.epistemic_tier;
      if (ceiling && tierRank(declared) < tierRank(ceiling))
        f.error(
          `${label}: epistemic_tier ${declared} is above the ceiling ${ceiling} of family '${family}'`,
          at('epistemic_tier'),
        );
    }
  }
  if (
    e.captured_at_commit !== undefined &&
    !(typeof e.captured_at_commit === 'string' && COMMIT.test(e.captured_at_commit))
  )
    f.error(`${label}: captured_at_commit must be 40 lowercase hex characters`, at('captured_at_commit'));
  if (e.cases !== undefined && !(typeof e.cases === 'number' && Number.isInteger(e.cases) && e.cases >= 0))
    f.error(`${label}: cases must be a whole number`, at('cases'));
  if (e.bounds !== undefined && !validBounds(e.bounds))
    f.error(`${label}: bounds must start with 'bounded' or 'unbounded' and then say what the limit was`, at('bounds'));

  // What could not be read is kept on the view: coverage lets no claim rest on it (fail closed).
  const unreadableRecord = await checkRecord(ctx, e, label, at);
  const unreadableInput = await checkInputs(ctx, e, 'inputs', 'subject', label, at);
  const unreadableBuildInput = await checkInputs(ctx, e, 'build_inputs', 'artifact', label, at);
  const unreadable = unreadableRecord ?? unreadableInput ?? unreadableBuildInput;
  checkToolchain(ctx, e, label, at);
  const control = checkControl(ctx, e, claimId, label, at);

  let tier = recordTier(family, declared);
  if (reference) {
    const derived = await checkReference(ctx, e, label, at);
    tier = derived && declared ? weaker(declared, derived) : derived;
  }
  return {
    index: j,
    kind,
    family,
    result,
    tier,
    author: str(e, 'author'),
    captured_at_commit: str(e, 'captured_at_commit'),
    witnessControl: control.witness,
    control: control.present,
    ...(unreadable ? { unreadable } : {}),
  };
}

/**
 * `record` (relative to the package's directory) and its optional `record_hash`, recomputed.
 * Returns `record '<path>'` when the record does not exist or cannot be read.
 */
async function checkRecord(
  ctx: Ctx,
  e: Table,
  label: string,
  at: (...k: (string | number)[]) => FieldPath,
): Promise<string | undefined> {
  if (e.record === undefined) return; // required-field message already given where it applies
  const declared =
    e.record_hash === undefined
      ? undefined
      : digestField(ctx, e.record_hash, 'record', `${label}: record_hash`, at('record_hash'));
  const abs = await pathInRoot(ctx, ctx.pkgDir, e.record, `${label}: record`, at('record'));
  if (!abs) return;
  // One read and one hash per file and command, however many claims cite it.
  const digest = await ctx.files.digest(abs, 'record');
  if (digest === undefined) {
    missing(ctx, `${label}: record '${e.record as string}' does not exist or cannot be read`, at('record'));
    return `record '${e.record as string}'`;
  }
  if (declared && digest !== declared)
    ctx.f.error(
      `${label}: record '${e.record as string}' does not match its record_hash (the record changed after it was cited)`,
      at('record_hash'),
    );
}

/**
 * `inputs` (the source files the record relied on, domain `subject`, as the reference's examples
 * write them) and `build_inputs` (domain `artifact`): paths relative to the subject root, digests
 * recomputed over the presented bytes. Returns `<key> '<path>'` of the first one that does not
 * exist or cannot be read.
 */
async function checkInputs(
  ctx: Ctx,
  e: Table,
  key: 'inputs' | 'build_inputs',
  domain: M11Domain,
  label: string,
  at: (...k: (string | number)[]) => FieldPath,
): Promise<string | undefined> {
  const list = e[key];
  let unreadable: string | undefined;
  if (list === undefined) return;
  if (!Array.isArray(list) || !list.every(isTable)) {
    ctx.f.error(`${label}: ${key} must be an array of {path, digest} tables`, at(key));
    return;
  }
  for (let k = 0; k < list.length; k++) {
    const item = list[k] as Table;
    const where = `${label}: ${key}[${k}]`;
    unknownKeys(ctx, item, at(key, k), KEYS.input, where);
    const declared = digestField(ctx, item.digest, domain, `${where}.digest`, at(key, k, 'digest'));
    if (!ctx.subjectRoot) continue;
    const abs = await pathInRoot(ctx, ctx.subjectRoot, item.path, `${where}.path`, at(key, k, 'path'));
    if (!abs) continue;
    const digest = await ctx.files.digest(abs, domain);
    if (digest === undefined) {
      missing(
        ctx,
        `${where}: '${item.path as string}' does not exist under the subject root or cannot be read`,
        at(key, k, 'path'),
      );
      unreadable ??= `${key} '${item.path as string}'`;
      continue;
    }
    if (declared && digest !== declared)
      ctx.f.error(
        `${where}: '${item.path as string}' does not match its digest (the file changed after the evidence was captured)`,
        at(key, k, 'digest'),
      );
  }
  return unreadable;
}

function checkToolchain(ctx: Ctx, e: Table, label: string, at: (...k: (string | number)[]) => FieldPath): void {
  const list = e.toolchain;
  if (list === undefined) return;
  if (!Array.isArray(list) || list.length === 0 || !list.every(isTable)) {
    ctx.f.error(`${label}: toolchain must be a nonempty array of {name, version, digest} tables`, at('toolchain'));
    return;
  }
  list.forEach((t, k) => {
    const where = `${label}: toolchain[${k}]`;
    unknownKeys(ctx, t, at('toolchain', k), KEYS.toolchain, where);
    if (!nonempty(t.name)) ctx.f.error(`${where}.name must be a nonempty string`, at('toolchain', k, 'name'));
    if (t.version !== undefined && !nonempty(t.version))
      ctx.f.error(`${where}.version must be a nonempty string when present`, at('toolchain', k, 'version'));
    if (t.commit !== undefined && !(typeof t.commit === 'string' && COMMIT.test(t.commit)))
      ctx.f.error(`${where}.commit must be 40 lowercase hex characters`, at('toolchain', k, 'commit'));
    if (t.digest !== undefined) digestField(ctx, t.digest, 'artifact', `${where}.digest`, at('toolchain', k, 'digest'));
    if (t.digest === undefined && t.commit === undefined)
      ctx.f.error(
        `${where} needs a digest (artifact:sha-512:...) or a commit: a name alone does not identify a build`,
        at('toolchain', k),
      );
  });
}

/** A control attests only the claim it names; an observed-red mutation/ablation is a witness. */
function checkControl(
  ctx: Ctx,
  e: Table,
  claimId: string | undefined,
  label: string,
  at: (...k: (string | number)[]) => FieldPath,
): { present: boolean; witness: boolean } {
  const c = e.control;
  if (c === undefined) return { present: false, witness: false };
  if (!isTable(c)) {
    ctx.f.error(`${label}: control must be a table {kind, expectation, observed, of_claim}`, at('control'));
    return { present: true, witness: false };
  }
  unknownKeys(ctx, c, at('control'), KEYS.control, `${label} control`);
  const before = ctx.f.errors;
  if (typeof c.kind !== 'string' || !CONTROL_KINDS.includes(c.kind))
    ctx.f.error(
      `${label}: control.kind must be one of ${CONTROL_KINDS.join(', ')}, got ${show(c.kind)}`,
      at('control', 'kind'),
    );
  if (typeof c.expectation !== 'string' || !CONTROL_EXPECTATIONS.includes(c.expectation))
    ctx.f.error(
      `${label}: control.expectation must be one of ${CONTROL_EXPECTATIONS.join(', ')}, got ${show(c.expectation)}`,
      at('control', 'expectation'),
    );
  if (!nonempty(c.observed))
    ctx.f.error(`${label}: control.observed must be a nonempty string`, at('control', 'observed'));
  if (!nonempty(c.of_claim)) ctx.f.error(`${label}: control.of_claim must name this claim`, at('control', 'of_claim'));
  else if (claimId !== undefined && c.of_claim !== claimId)
    ctx.f.error(
      `${label}: control.of_claim '${c.of_claim}' does not name this claim '${claimId}': a control attests only the claim it names`,
      at('control', 'of_claim'),
    );
  const witness =
    ctx.f.errors === before &&
    (c.kind === 'mutation' || c.kind === 'ablation') &&
    c.expectation === 'red' &&
    c.observed === 'red' &&
    c.of_claim === claimId;
  return { present: true, witness };
}

/**
 * Evidence citing a claim of another package (`family = "reference"`, kind `acceptance-claim`):
 * the cited package must be readable (else INDETERMINATE), match `manifest_hash`, validate, and
 * hold the claim evidenced. Its tier is the cited claim's tier.
 */
async function checkReference(
  ctx: Ctx,
  e: Table,
  label: string,
  at: (...k: (string | number)[]) => FieldPath,
): Promise<Tier | undefined> {
  if (e.kind !== 'acceptance-claim')
    ctx.f.error(`${label}: family 'reference' is for kind 'acceptance-claim' records`, at('kind'));
  const declared = digestField(ctx, e.manifest_hash, 'manifest', `${label}: manifest_hash`, at('manifest_hash'));
  const abs = await pathInRoot(ctx, ctx.pkgDir, e.manifest, `${label}: manifest`, at('manifest'));
  if (!abs || !declared || !nonempty(e.claim)) return undefined;
  const bytes = await ctx.files.bytes(abs);
  const digest = await ctx.files.digest(abs, 'manifest');
  if (!bytes || digest === undefined) {
    ctx.f.indeterminate(`${label}: cited package '${e.manifest as string}' cannot be read`, at('manifest'));
    return undefined;
  }
  if (digest !== declared) {
    ctx.f.error(
      `${label}: cited package '${e.manifest as string}' does not match its manifest_hash`,
      at('manifest_hash'),
    );
    return undefined;
  }
  if (ctx.stack.includes(digest)) {
    ctx.f.indeterminate(`${label}: citation cycle through '${e.manifest as string}'`, at('manifest'));
    return undefined;
  }
  if (ctx.stack.length >= MAX_REFERENCE_DEPTH) {
    ctx.f.indeterminate(`${label}: citations deeper than ${MAX_REFERENCE_DEPTH} packages`, at('manifest'));
    return undefined;
  }
  let cited: FormatResult;
  try {
    cited = await validateAt(parseDoc(bytes, e.manifest as string, abs), ctx.opts, ctx.files, [...ctx.stack, digest]);
  } catch (error) {
    if (error instanceof InvalidInputError) {
      ctx.f.error(
        `${label}: cited package '${e.manifest as string}' cannot be read as an acceptance 0.4 package: ${error.message}`,
        at('manifest'),
      );
      return undefined;
    }
    throw error;
  }
  if (cited.verdict === 'FAIL') {
    ctx.f.error(`${label}: cited package '${e.manifest as string}' fails validation`, at('manifest'));
    return undefined;
  }
  if (cited.verdict === 'INDETERMINATE') {
    ctx.f.indeterminate(`${label}: cited package '${e.manifest as string}' is indeterminate`, at('manifest'));
    return undefined;
  }
  const claim = cited.claims.find((c) => c.id === e.claim);
  if (!claim || (claim.status !== 'evidenced' && claim.status !== 'partial')) {
    ctx.f.error(
      `${label}: cited claim '${e.claim}' is not an evidenced claim of '${e.manifest as string}'`,
      at('claim'),
    );
    return undefined;
  }
  if (!claim.tier) ctx.f.error(`${label}: cited claim '${e.claim}' has no passing record`, at('claim'));
  return claim.tier;
}
