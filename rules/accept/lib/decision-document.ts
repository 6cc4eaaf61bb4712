/**
 * The first steps of judging a decision: its `[document]` table (protocol, kind, issuer, verdict
 * form), self-acceptance, and `[binds]`, whose hashes are recomputed from the presented files.
 */
import { m11Digest, parseM11, type M11Domain } from '../../../src/hash/index.js';
import { isRfc3339 } from '../../../src/text/dates.js';
import { type DecisionState, nonEmpty, oneOf, q } from './decision-state.js';
import { digestsDiffer } from './digests.js';
import type { Findings } from './report.js';
import { parties } from './specification.js';
import { isTable, str, table, type Doc, type FieldPath, type Table } from './toml.js';
import { DECISION_VERDICTS } from './verdict.js';
import { PROTOCOL_ID } from './versions.js';

/** The text every stale finding starts with (gates and tests look for it). */
const STALE = 'stale: renewed decision required';

/** `[document]`: sets the issuer once it is well formed. */
export function checkDocument(s: DecisionState): void {
  const { f, spec } = s;
  const document = table(s.d, 'document');
  if (!document) f.error('[document] is missing');
  else {
    if (document.protocol !== PROTOCOL_ID)
      f.error(`[document].protocol must be '${PROTOCOL_ID}', got ${q(document.protocol)}`, ['document', 'protocol']);
    if (document.kind !== 'decision')
      f.error(`[document].kind must be 'decision', got ${q(document.kind)}`, ['document', 'kind']);
    if (!nonEmpty(document.id)) f.error('[document].id must be a non-empty string', ['document', 'id']);
    if (!isRfc3339(document.issued_at))
      f.error(
        `[document].issued_at must be an RFC 3339 date-time with an offset (2026-09-01T10:00:00Z), got ${q(document.issued_at)}`,
        ['document', 'issued_at'],
      );
    if (!(DECISION_VERDICTS as readonly unknown[]).includes(document.verdict))
      f.error(`[document].verdict must be one of ${oneOf(DECISION_VERDICTS)}, got ${q(document.verdict)}`, [
        'document',
        'verdict',
      ]);
    if (document.provisional !== undefined && typeof document.provisional !== 'boolean')
      f.error('[document].provisional must be a boolean', ['document', 'provisional']);
    const i = document.issuer;
    if (!isTable(i) || !nonEmpty(i.name) || !nonEmpty(i.role))
      f.error(`[document].issuer must be a table {name, role} of non-empty strings, got ${q(i)}`, [
        'document',
        'issuer',
      ]);
    else {
      s.issuer = { name: i.name, role: i.role };
      if (spec.authority === undefined)
        f.error('the specification names no [acceptance].authority: nobody may decide', ['document', 'issuer']);
      else if (i.name !== spec.authority)
        f.error(`[document].issuer.name ${q(i.name)} is not the specification's authority ${q(spec.authority)}`, [
          'document',
          'issuer',
        ]);
    }
  }
}

/** Self-acceptance: valid, but the decision's independence is none. */
export function noteSelfAcceptance(s: DecisionState): void {
  const { issuer } = s;
  const { producer } = parties(s.specDoc);
  s.selfAccepted = issuer !== undefined && producer !== undefined && issuer.name === producer;
  if (s.selfAccepted)
    s.f.note(
      `self-acceptance: the issuer ${q(issuer!.name)} is also the producer; the decision's independence is none, so no requirement demanding more independence can be satisfied`,
      ['document', 'issuer'],
    );
}

/** `[binds]`: what the decision judged, recomputed from the presented files; sets `stale`. */
export function checkBinds(s: DecisionState): void {
  const { f, d, specDoc, pkgDoc } = s;
  const binds = table(d, 'binds');
  if (!binds) f.error('[binds] is missing: a decision must bind the specification, the package and the subject');
  else {
    const specBind = table(binds, 'specification');
    if (!specBind) f.error('[binds].specification must be a table {id, hash}', ['binds', 'specification']);
    else {
      const specId = str(table(specDoc.data, 'document'), 'id');
      if (specBind.id !== specId)
        f.error(`[binds].specification.id ${q(specBind.id)} is not the specification's id ${q(specId)}`, [
          'binds',
          'specification',
          'id',
        ]);
      s.stale =
        bindHash(f, specBind.hash, 'specification', specDoc, 'specification', ['binds', 'specification', 'hash']) ||
        s.stale;
    }
    const pkgBind = table(binds, 'package');
    if (!pkgBind) f.error('[binds].package must be a table {hash}', ['binds', 'package']);
    else s.stale = bindHash(f, pkgBind.hash, 'manifest', pkgDoc, 'package', ['binds', 'package', 'hash']) || s.stale;
    checkSubjectBind(f, table(binds, 'subject'), table(pkgDoc.data, 'subject'));
  }
}

/** Checks a bound hash; returns true when it is well formed but no longer matches (stale). */
function bindHash(f: Findings, value: unknown, domain: M11Domain, doc: Doc, what: string, at: FieldPath): boolean {
  if (typeof value === 'string' && /^sha-512:[0-9a-f]{128}$/.test(value)) {
    f.error(`${at.join('.')} uses the retired bare form 'sha-512:<hex>': write '${domain}:sha-512:<hex>'`, at);
    return false;
  }
  const parsed = parseM11(value);
  if (!parsed) {
    f.error(`${at.join('.')} must be '${domain}:sha-512:<128 lowercase hex>', got ${q(value)}`, at);
    return false;
  }
  if (parsed.domain !== domain) {
    f.error(`${at.join('.')} is in domain '${parsed.domain}'; a ${what} binds in domain '${domain}'`, at);
    return false;
  }
  const now = m11Digest(domain, doc.bytes);
  if (now === value) return false;
  f.error(
    `${STALE}: the ${what} ${doc.file} changed since the decision (bound and presented digests ${digestsDiffer(value as string, now)})`,
    at,
  );
  return true;
}

/** `[binds].subject` is `{commit}` or `{digest}`, the same form and value as the package's subject identity. */
function checkSubjectBind(f: Findings, bind: Table | undefined, subject: Table | undefined): void {
  const at: FieldPath = ['binds', 'subject'];
  if (subject?.dirty === true)
    f.error(
      'the package subject is dirty (dirty = true): a dirty subject cannot be decided on; commit it and issue a package for the commit',
      at,
    );
  const pkgCommit = str(subject, 'commit');
  const pkgDigest = str(subject, 'digest');
  if (pkgCommit === undefined && pkgDigest === undefined) {
    f.error('the package subject has no certified identity (commit or digest): there is nothing to decide on', at);
    return;
  }
  if (!bind) return f.error('[binds].subject must be a table {commit} or {digest}', at);
  const keys = ['commit', 'digest'].filter((k) => bind[k] !== undefined);
  if (keys.length !== 1)
    return f.error(
      `[binds].subject must carry exactly one of commit, digest; got ${keys.length ? keys.join(' and ') : 'neither'}`,
      at,
    );
  const want = pkgCommit !== undefined ? { key: 'commit', value: pkgCommit } : { key: 'digest', value: pkgDigest! };
  if (keys[0] !== want.key)
    return f.error(`[binds].subject binds a ${keys[0]}, but the package subject is identified by its ${want.key}`, at);
  if (bind[want.key] !== want.value)
    f.error(
      `[binds].subject.${want.key} ${q(bind[want.key])} is not the package subject's ${want.key} ${q(want.value)}`,
      [...at, want.key],
    );
}
