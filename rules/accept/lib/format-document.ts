/**
 * The format validator's checks of a package's header tables: `[format]` (which also resolves the
 * profile), `[spec]` (the specification the claims answer must be readable) and `[coverage]`.
 */
import { type Ctx, nonempty, pathInRoot, show, unknownKeys } from './format-context.js';
import { KEYS } from './format-keys.js';
import { resolveProfile } from './profiles.js';
import { isTable } from './toml.js';
import { FORMAT_ID, PROTOCOL_ID } from './versions.js';

export function checkFormat(ctx: Ctx): void {
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

export async function checkSpec(ctx: Ctx): Promise<void> {
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

export function checkCoverage(ctx: Ctx, count: number): void {
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
