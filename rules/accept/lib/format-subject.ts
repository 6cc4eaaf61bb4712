/**
 * The format validator's check of `[subject]`: a prospective subject reads at a commit or digest,
 * a retrospective one carries exactly one certified identity (commit, digest or components).
 */
import { m11Digest } from '../../../src/hash/index.js';
import { COMMIT, type Ctx, digestField, nonempty, show, unknownKeys } from './format-context.js';
import { KEYS } from './format-keys.js';
import { insideRoot } from './paths.js';
import { isTable, type FieldPath, type Table } from './toml.js';

const COMPONENT_NAME = /^[a-z0-9][a-z0-9._-]*$/;
const TOKEN = /^[a-z][a-z0-9-]*$/;

/** Returns whether the subject is prospective; sets the subject root. */
export function checkSubject(ctx: Ctx): boolean {
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
