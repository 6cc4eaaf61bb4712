/**
 * `check-spec`: the specification document's own rules (acceptance-details.md section 3), pure.
 * Returns the findings plus the requirement views coverage, packages and decisions read, and
 * whether the specification binds (a producer-issued one only once ratified). Fields 0.4.0 does
 * not define but 0.3.2 did (`domain`, `clause_source` vocabularies, `recipe_required`,
 * cross-cutting `over`/`demands`) are carried over; a floor vkit cannot evaluate is never
 * ignored: it makes the specification indeterminate.
 */
import { isRfc3339 } from '../../../src/text/dates.js';
import { TIERS, type RequirementView, type SpecificationCheck, type Tier } from './model.js';
import { Findings } from './report.js';
import { isTable, str, type Doc, type FieldPath, type Table } from './toml.js';
import { PROTOCOL_ID, refuseVersion03 } from './versions.js';
import { isDuration } from './durations.js';
import { SPECIFICATION_DATE_FIELDS, specificationKeys } from './document-keys.js';
import { datesOutside, nearestKey, unknownKeyMessage } from './keys.js';

const SPEC_STATUSES = ['draft', 'issued', 'ratified', 'superseded', 'withdrawn'] as const;
const ISSUERS = ['consumer', 'producer'] as const;
const VERIFICATION_MODES = ['package-trusted', 'spot-check', 're-execute-all'] as const;
const REQUIREMENT_KINDS = ['item', 'cross-cutting', 'chain'] as const;
const FRESHNESS = ['delivered-revision', 'any'] as const;
/** Weakest first: the order a floor is compared in. */
export const INDEPENDENCE = ['none', 'author-not-producer', 'consumer-run', 'third-party'] as const;
const DOMAINS = [
  'correctness',
  'safety',
  'security',
  'performance',
  'compatibility',
  'documentation',
  'packaging',
  'process',
  'legal',
  'information-flow',
  'availability',
  'other',
] as const;
const CLAUSE_SOURCES = ['consumer-statement', 'external-standard', 'spec-document'] as const;
const RELATIONS = ['build-tool', 'language', 'platform', 'runtime', 'verification-tool'] as const;
const EVIDENCE_FIELDS = [
  'min_tier',
  'weighted_required',
  'control_required',
  'recipe_required',
  'freshness',
  'independence',
  'methods',
];
const DEMAND_FIELDS = ['min_tier', 'weighted_required', 'control_required', 'fields', 'fields_exact'];

const q = (v: unknown) => (v === undefined ? 'nothing' : typeof v === 'string' ? `'${v}'` : JSON.stringify(v));
const oneOf = (values: readonly string[]) => values.join(', ');
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const isTier = (v: unknown): v is Tier => typeof v === 'string' && (TIERS as readonly string[]).includes(v);
const stringList = (v: unknown): v is string[] => Array.isArray(v) && v.every(nonEmpty);

export function checkSpecification(doc: Doc): SpecificationCheck {
  refuseVersion03(doc);
  const f = new Findings(doc.file, doc);
  const d = doc.data;
  specificationKeys(d, f);
  datesOutside(doc, f, SPECIFICATION_DATE_FIELDS);

  const document = sectionTable(d, 'document', f);
  if (document) {
    expect(
      f,
      document.protocol === PROTOCOL_ID,
      `[document].protocol must be '${PROTOCOL_ID}', got ${q(document.protocol)}`,
      ['document', 'protocol'],
    );
    expect(f, document.kind === 'specification', `[document].kind must be 'specification', got ${q(document.kind)}`, [
      'document',
      'kind',
    ]);
    expect(f, nonEmpty(document.id), '[document].id must be a non-empty string', ['document', 'id']);
    expect(f, isInt(document.version), `[document].version must be an integer, got ${q(document.version)}`, [
      'document',
      'version',
    ]);
    expect(
      f,
      isRfc3339(document.issued_at),
      `[document].issued_at must be an RFC 3339 date-time with an offset (2026-08-01T10:00:00Z), got ${q(document.issued_at)}`,
      ['document', 'issued_at'],
    );
    expect(
      f,
      (ISSUERS as readonly unknown[]).includes(document.issued_by),
      `[document].issued_by must be one of ${oneOf(ISSUERS)}, got ${q(document.issued_by)}`,
      ['document', 'issued_by'],
    );
    expect(
      f,
      (SPEC_STATUSES as readonly unknown[]).includes(document.status),
      `[document].status must be one of ${oneOf(SPEC_STATUSES)}, got ${q(document.status)}`,
      ['document', 'status'],
    );
  }

  const parties = sectionTable(d, 'parties', f);
  const partyName = (role: 'consumer' | 'producer'): string | undefined => {
    if (!parties) return undefined;
    const p = parties[role];
    if (!isTable(p)) {
      f.error(`[parties].${role} must be a table {name, role}`, ['parties', role]);
      return undefined;
    }
    expect(f, nonEmpty(p.name), `[parties].${role}.name must be a non-empty string`, ['parties', role]);
    expect(f, nonEmpty(p.role), `[parties].${role}.role must be a non-empty string`, ['parties', role]);
    return nonEmpty(p.name) ? p.name : undefined;
  };
  const consumer = partyName('consumer');
  const producer = partyName('producer');

  const binding = checkBinding(d, document, consumer, f);
  const acceptance = checkAcceptance(d, [consumer, producer], f);
  const requirements = checkRequirements(d, f);
  // An assurance class sets floors for every requirement; with no class table none of them is evaluated in full.
  if (acceptance?.assurance_class !== undefined)
    for (const r of requirements) r.unevaluated.push(`[acceptance].assurance_class ${q(acceptance.assurance_class)}`);

  return {
    findings: f,
    requirements,
    authority: str(acceptance, 'authority'),
    staleAfter: acceptance && isDuration(acceptance.stale_after) ? (acceptance.stale_after as string) : undefined,
    consumerVerification:
      acceptance && (VERIFICATION_MODES as readonly unknown[]).includes(acceptance.consumer_verification)
        ? (acceptance.consumer_verification as SpecificationCheck['consumerVerification'])
        : undefined,
    binding,
  };
}

/** The party names, when present: independence is judged against them. */
export function parties(doc: Doc): { consumer?: string; producer?: string } {
  const p = isTable(doc.data.parties) ? doc.data.parties : undefined;
  const name = (t: unknown) => (isTable(t) && nonEmpty(t.name) ? t.name : undefined);
  return { consumer: name(p?.consumer), producer: name(p?.producer) };
}

/** Why a specification does not bind (undefined when it does): the message check-package prints. */
export function notBindingReason(doc: Doc): string | undefined {
  const document = isTable(doc.data.document) ? doc.data.document : {};
  const status = document.status;
  const issuedBy = document.issued_by;
  if (status === 'ratified')
    return isTable(doc.data.ratification) ? undefined : `status 'ratified' without a [ratification] table`;
  if (status === 'issued' && issuedBy === 'consumer') return undefined;
  if (status === 'issued' && issuedBy === 'producer')
    return `status 'issued', issued_by 'producer': a producer-issued specification binds only once ratified by the consumer`;
  return `status ${q(status)}: only an issued (consumer) or ratified specification binds`;
}

function sectionTable(d: Table, key: string, f: Findings): Table | undefined {
  if (d[key] === undefined) {
    f.error(`[${key}] is missing`);
    return undefined;
  }
  if (!isTable(d[key])) {
    f.error(`[${key}] must be a table`, [key]);
    return undefined;
  }
  return d[key] as Table;
}

function expect(f: Findings, ok: boolean, message: string, path?: FieldPath): boolean {
  if (!ok) f.error(message, path);
  return ok;
}

/** `[ratification] by, at`: required exactly when a producer-issued specification says ratified. */
function checkBinding(d: Table, document: Table | undefined, consumer: string | undefined, f: Findings): boolean {
  if (!document) return false;
  const ratification = d.ratification;
  const needs = document.issued_by === 'producer' && document.status === 'ratified';
  let ratified = true;
  if (needs) {
    if (!isTable(ratification)) {
      f.error(`[ratification] {by, at} is required when issued_by = 'producer' and status = 'ratified'`, [
        'document',
        'status',
      ]);
      ratified = false;
    } else {
      if (!nonEmpty(ratification.by) || (consumer !== undefined && ratification.by !== consumer)) {
        f.error(`[ratification].by must be the consumer ${q(consumer)}, got ${q(ratification.by)}`, [
          'ratification',
          'by',
        ]);
        ratified = false;
      }
      if (
        !(
          isRfc3339(ratification.at) ||
          (typeof ratification.at === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(ratification.at))
        )
      ) {
        f.error(`[ratification].at must be an RFC 3339 date-time or a date, got ${q(ratification.at)}`, [
          'ratification',
          'at',
        ]);
        ratified = false;
      }
    }
  } else if (ratification !== undefined) {
    f.warn(
      `[ratification] is present but only a producer-issued, ratified specification needs it; check issued_by and status`,
      ['ratification'],
    );
  }
  const status = document.status;
  const binding = ratified && (status === 'ratified' || (status === 'issued' && document.issued_by === 'consumer'));
  if (
    !binding &&
    ratified &&
    (SPEC_STATUSES as readonly unknown[]).includes(status) &&
    (ISSUERS as readonly unknown[]).includes(document.issued_by)
  ) {
    f.note(
      `not binding: status '${String(status)}', issued_by '${String(document.issued_by)}' (a producer-issued specification binds only once ratified; draft, superseded and withdrawn never bind)`,
      ['document', 'status'],
    );
  }
  return binding;
}

function checkAcceptance(d: Table, partyNames: (string | undefined)[], f: Findings): Table | undefined {
  const a = sectionTable(d, 'acceptance', f);
  if (!a) return undefined;
  expect(
    f,
    a.rule === 'all-mandatory-satisfied',
    `[acceptance].rule must be 'all-mandatory-satisfied', got ${q(a.rule)}`,
    ['acceptance', 'rule'],
  );
  if (!nonEmpty(a.authority))
    f.error('[acceptance].authority must be a non-empty string (the party name that may decide)', [
      'acceptance',
      'authority',
    ]);
  else if (!partyNames.includes(a.authority))
    f.error(
      `[acceptance].authority ${q(a.authority)} is not a party name (${partyNames.filter(Boolean).map(q).join(', ') || 'no parties'})`,
      ['acceptance', 'authority'],
    );
  expect(
    f,
    (VERIFICATION_MODES as readonly unknown[]).includes(a.consumer_verification),
    `[acceptance].consumer_verification must be one of ${oneOf(VERIFICATION_MODES)}, got ${q(a.consumer_verification)}`,
    ['acceptance', 'consumer_verification'],
  );
  expect(f, stringList(a.profiles_required), '[acceptance].profiles_required must be a list of non-empty strings', [
    'acceptance',
    'profiles_required',
  ]);
  if (a.stale_after !== undefined)
    expect(
      f,
      isDuration(a.stale_after),
      `[acceptance].stale_after must be an ISO-8601 duration such as P180D, got ${q(a.stale_after)}`,
      ['acceptance', 'stale_after'],
    );
  if (a.assurance_class !== undefined) {
    if (!(typeof a.assurance_class === 'string' && /^[^/\s]+\/\d+$/.test(a.assurance_class)))
      f.error(`[acceptance].assurance_class must be '<scheme>/<level>', got ${q(a.assurance_class)}`, [
        'acceptance',
        'assurance_class',
      ]);
    // vkit carries no assurance class table, so the class floors cannot be compared: never a silent pass.
    else
      f.indeterminate(
        `[acceptance].assurance_class '${a.assurance_class}' cannot be evaluated: this vkit has no assurance class table`,
        ['acceptance', 'assurance_class'],
      );
  }
  return a;
}

function checkRequirements(d: Table, f: Findings): RequirementView[] {
  const raw = d.requirement;
  if (raw === undefined) {
    f.error('[[requirement]] is missing: a specification needs at least one requirement');
    return [];
  }
  if (!Array.isArray(raw)) {
    f.error('[[requirement]] must be an array of tables', ['requirement']);
    return [];
  }
  const ids = new Map<string, { index: number; kind: unknown }>();
  raw.forEach((r, i) => {
    if (isTable(r) && nonEmpty(r.id) && !ids.has(r.id)) ids.set(r.id, { index: i, kind: r.kind ?? 'item' });
  });
  const views: RequirementView[] = [];
  const seen = new Set<string>();
  let mandatory = 0;
  raw.forEach((r, i) => {
    const at = (...rest: (string | number)[]): FieldPath => ['requirement', i, ...rest];
    if (!isTable(r)) {
      f.error(`requirement[${i}] must be a table`, at());
      return;
    }
    const ctx = nonEmpty(r.id) ? `requirement '${r.id}'` : `requirement[${i}]`;
    if (!nonEmpty(r.id)) f.error(`${ctx}: id must be a non-empty string`, at());
    else if (seen.has(r.id)) f.error(`${ctx}: duplicate requirement id`, at('id'));
    else seen.add(r.id);
    expect(f, nonEmpty(r.statement), `${ctx}: statement must be a non-empty string`, at('statement'));
    expect(f, isBool(r.mandatory), `${ctx}: mandatory must be true or false`, at('mandatory'));
    expect(f, isBool(r.waivable), `${ctx}: waivable must be true or false`, at('waivable'));
    expect(
      f,
      (DOMAINS as readonly unknown[]).includes(r.domain),
      `${ctx}: domain must be one of ${oneOf(DOMAINS)}, got ${q(r.domain)}`,
      at('domain'),
    );
    expect(
      f,
      (CLAUSE_SOURCES as readonly unknown[]).includes(r.clause_source),
      `${ctx}: clause_source must be one of ${oneOf(CLAUSE_SOURCES)}, got ${q(r.clause_source)}`,
      at('clause_source'),
    );
    if (r.mandatory === true) mandatory++;
    const kind = r.kind ?? 'item';
    if (!(REQUIREMENT_KINDS as readonly unknown[]).includes(kind)) {
      f.error(`${ctx}: kind must be one of ${oneOf(REQUIREMENT_KINDS)}, got ${q(kind)}`, at('kind'));
      return;
    }
    const view: RequirementView = {
      index: i,
      id: nonEmpty(r.id) ? r.id : `requirement[${i}]`,
      statement: str(r, 'statement'),
      mandatory: r.mandatory === true,
      waivable: r.waivable === true,
      kind: kind as RequirementView['kind'],
      evidence: {
        weighted_required: true,
        control_required: false,
        freshness: 'any',
        independence: 'none',
        methods: [],
      },
      unevaluated: [],
    };
    const forbidden = (keys: readonly string[], what: string) => {
      for (const k of keys)
        if (r[k] !== undefined)
          f.error(
            `${ctx}: ${what} requirement must not carry ${k === 'over' ? "'over'" : `[requirement.${k}]`}`,
            at(k),
          );
    };
    if (kind === 'item') {
      forbidden(['demands', 'over', 'chain'], 'an item');
      if (!isTable(r.evidence)) f.error(`${ctx}: an item requirement needs [requirement.evidence]`, at());
      else {
        view.evidence = checkFloor(r.evidence, ctx, at('evidence'), f);
        view.unevaluated = unevaluatedKeys(r.evidence, EVIDENCE_FIELDS, 'evidence', 'a floor', ctx, at('evidence'), f);
      }
    } else if (kind === 'cross-cutting') {
      forbidden(['evidence', 'chain'], 'a cross-cutting');
      checkCrossCutting(r, view, ctx, at, ids, f);
    } else {
      forbidden(['evidence', 'demands', 'over'], 'a chain');
      checkChainFields(r.chain, ctx, at('chain'), f);
    }
    views.push(view);
  });
  if (raw.length === 0)
    f.error('[[requirement]] is empty: a specification needs at least one requirement', ['requirement']);
  else if (mandatory === 0)
    f.error('a specification needs at least one mandatory requirement: with none, acceptance would be vacuous', [
      'requirement',
      0,
    ]);
  return views;
}

function checkFloor(ev: Table, ctx: string, at: FieldPath, f: Findings): RequirementView['evidence'] {
  const p = (k: string): FieldPath => [...at, k];
  expect(
    f,
    isTier(ev.min_tier),
    `${ctx}: evidence.min_tier must be one of ${oneOf(TIERS)}, got ${q(ev.min_tier)}`,
    p('min_tier'),
  );
  if (ev.weighted_required !== undefined)
    expect(
      f,
      isBool(ev.weighted_required),
      `${ctx}: evidence.weighted_required must be true or false`,
      p('weighted_required'),
    );
  expect(
    f,
    isBool(ev.control_required),
    `${ctx}: evidence.control_required must be true or false`,
    p('control_required'),
  );
  if (ev.recipe_required !== undefined)
    expect(
      f,
      isBool(ev.recipe_required),
      `${ctx}: evidence.recipe_required must be true or false`,
      p('recipe_required'),
    );
  expect(
    f,
    (FRESHNESS as readonly unknown[]).includes(ev.freshness),
    `${ctx}: evidence.freshness must be one of ${oneOf(FRESHNESS)}, got ${q(ev.freshness)}`,
    p('freshness'),
  );
  expect(
    f,
    (INDEPENDENCE as readonly unknown[]).includes(ev.independence),
    `${ctx}: evidence.independence must be one of ${oneOf(INDEPENDENCE)}, got ${q(ev.independence)}`,
    p('independence'),
  );
  if (ev.methods !== undefined)
    expect(
      f,
      stringList(ev.methods) && ev.methods.length > 0,
      `${ctx}: evidence.methods must be a non-empty list of evidence kinds`,
      p('methods'),
    );
  return {
    min_tier: isTier(ev.min_tier) ? ev.min_tier : undefined,
    weighted_required: ev.weighted_required !== false,
    // A malformed boolean floor reads as demanded: the document is invalid anyway, and no view is weaker than it says.
    control_required: ev.control_required !== false,
    freshness: ev.freshness === 'any' ? 'any' : 'delivered-revision',
    independence: (INDEPENDENCE as readonly unknown[]).includes(ev.independence)
      ? (ev.independence as RequirementView['evidence']['independence'])
      : 'third-party',
    methods: stringList(ev.methods) ? ev.methods : [],
    ...(ev.recipe_required !== undefined ? { recipe_required: ev.recipe_required !== false } : {}),
  };
}

function checkCrossCutting(
  r: Table,
  view: RequirementView,
  ctx: string,
  at: (...rest: (string | number)[]) => FieldPath,
  ids: Map<string, { kind: unknown }>,
  f: Findings,
): void {
  const over = r.over;
  if (over === 'all') view.over = 'all';
  else if (stringList(over) && over.length > 0) {
    view.over = over;
    const unknown = over.filter((id) => !ids.has(id));
    if (unknown.length) f.error(`${ctx}: over names unknown requirement(s) ${unknown.map(q).join(', ')}`, at('over'));
    const notItems = over.filter((id) => ids.has(id) && (ids.get(id)!.kind ?? 'item') !== 'item');
    if (notItems.length)
      f.error(`${ctx}: over may name item requirements only, not ${notItems.map(q).join(', ')}`, at('over'));
  } else
    f.error(
      `${ctx}: a cross-cutting requirement needs over = "all" or a non-empty list of requirement ids`,
      at('over'),
    );
  const dm = r.demands;
  if (!isTable(dm)) {
    f.error(`${ctx}: a cross-cutting requirement needs [requirement.demands]`, at());
    view.demands = { weighted_required: true, control_required: true, fields: {}, fields_exact: {} };
    return;
  }
  const p = (k: string): FieldPath => at('demands', k);
  if (dm.min_tier !== undefined)
    expect(
      f,
      isTier(dm.min_tier),
      `${ctx}: demands.min_tier must be one of ${oneOf(TIERS)}, got ${q(dm.min_tier)}`,
      p('min_tier'),
    );
  for (const k of ['weighted_required', 'control_required'])
    if (dm[k] !== undefined) expect(f, isBool(dm[k]), `${ctx}: demands.${k} must be true or false`, p(k));
  const strMap = (k: string): Record<string, string> => {
    const v = dm[k];
    if (v === undefined) return {};
    if (!isTable(v) || !Object.values(v).every((x) => typeof x === 'string')) {
      f.error(`${ctx}: demands.${k} must be a table of field = "value"`, p(k));
      return {};
    }
    return v as Record<string, string>;
  };
  view.unevaluated = unevaluatedKeys(dm, DEMAND_FIELDS, 'demands', 'a demand', ctx, at('demands'), f);
  view.demands = {
    min_tier: isTier(dm.min_tier) ? dm.min_tier : undefined,
    weighted_required: dm.weighted_required === true,
    control_required: dm.control_required === true,
    fields: strMap('fields'),
    fields_exact: strMap('fields_exact'),
  };
}

/**
 * The keys of a floor (`evidence`) or demands table vkit cannot evaluate (coverage_min,
 * build_inputs_required, profile floors, ...): never skipped, each makes the specification
 * indeterminate and is returned (`evidence.coverage_min`) for the requirement to carry. A key that
 * looks like a typo of a known one (`min_teir`) is an error naming the key it likely meant.
 */
function unevaluatedKeys(
  t: Table,
  known: readonly string[],
  section: 'evidence' | 'demands',
  what: string,
  ctx: string,
  at: FieldPath,
  f: Findings,
): string[] {
  const unknown = Object.keys(t).filter((k) => !known.includes(k));
  const typos = unknown.filter((k) => nearestKey(k, known) !== undefined);
  for (const k of typos) f.error(unknownKeyMessage(`${ctx}: ${section}`, k, known), [...at, k]);
  const keys = unknown.filter((k) => !typos.includes(k));
  for (const k of keys) f.indeterminate(`${ctx}: ${section}.${k} is ${what} this vkit cannot evaluate`, [...at, k]);
  return keys.map((k) => `${section}.${k}`);
}

function checkChainFields(chain: unknown, ctx: string, at: FieldPath, f: Findings): void {
  if (!isTable(chain)) {
    f.error(`${ctx}: a chain requirement needs [requirement.chain]`, at);
    return;
  }
  const p = (k: string): FieldPath => [...at, k];
  const rel = chain.relations;
  if (!(stringList(rel) && rel.length > 0))
    f.error(`${ctx}: chain.relations must be a non-empty list of ${oneOf(RELATIONS)}`, p('relations'));
  else {
    const bad = rel.filter((x) => !(RELATIONS as readonly string[]).includes(x));
    if (bad.length)
      f.error(
        `${ctx}: chain.relations names unknown relation(s) ${bad.map(q).join(', ')} (known: ${oneOf(RELATIONS)})`,
        p('relations'),
      );
  }
  expect(
    f,
    chain.depth === 'all' || (isInt(chain.depth) && chain.depth >= 1),
    `${ctx}: chain.depth must be "all" or a positive integer, got ${q(chain.depth)}`,
    p('depth'),
  );
  expect(
    f,
    chain.level === 'C1' || chain.level === 'C2',
    `${ctx}: chain.level must be C1 or C2, got ${q(chain.level)}`,
    p('level'),
  );
  expect(
    f,
    chain.completeness === 'verified' || chain.completeness === 'declared',
    `${ctx}: chain.completeness must be verified or declared, got ${q(chain.completeness)}`,
    p('completeness'),
  );
  expect(f, chain.binds === 'consumed', `${ctx}: chain.binds must be 'consumed', got ${q(chain.binds)}`, p('binds'));
  expect(
    f,
    stringList(chain.acceptors) && chain.acceptors.length > 0,
    `${ctx}: chain.acceptors must be a non-empty list of acceptor names`,
    p('acceptors'),
  );
  expect(
    f,
    isBool(chain.allow_conditions),
    `${ctx}: chain.allow_conditions must be true or false`,
    p('allow_conditions'),
  );
  expect(
    f,
    chain.unaccepted === 'refuse' || chain.unaccepted === 'gap',
    `${ctx}: chain.unaccepted must be refuse or gap, got ${q(chain.unaccepted)}`,
    p('unaccepted'),
  );
  expect(
    f,
    isInt(chain.max_elements) && chain.max_elements >= 1,
    `${ctx}: chain.max_elements must be a positive integer, got ${q(chain.max_elements)}`,
    p('max_elements'),
  );
}
