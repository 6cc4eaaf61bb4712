/**
 * The format validator's check of one `[[claim.evidence]]` record: its fields and tier, the bytes
 * of its record and inputs (recomputed), its toolchain and its control.
 */
import type { M11Domain } from '../../../src/hash/index.js';
import { COMMIT, type Ctx, digestField, missing, nonempty, pathInRoot, show, unknownKeys } from './format-context.js';
import { KEYS } from './format-keys.js';
import { checkReference } from './format-reference.js';
import type { EvidenceView, Tier } from './model.js';
import { FAMILY_CEILING, isTier, recordTier, REFERENCE_FAMILY, tierRank, weaker } from './tiers.js';
import { isTable, str, type FieldPath, type Table } from './toml.js';
import { validBounds } from './weight.js';

const RESULTS = ['pass', 'fail', 'unsupported'];
const CONTROL_KINDS = ['mutation', 'ablation', 'planted-twin'];
const CONTROL_EXPECTATIONS = ['red', 'green', 'sat'];

export async function checkEvidence(
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
