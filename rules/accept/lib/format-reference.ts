/**
 * The format validator's check of evidence citing a claim of another package: the cited package is
 * validated in turn (through `ctx.validateCited`), at most a few citations deep and never in a cycle.
 */
import { InvalidInputError } from '../../../src/errors.js';
import { type Ctx, digestField, nonempty, pathInRoot } from './format-context.js';
import type { FormatResult, Tier } from './model.js';
import { parseDoc, type FieldPath, type Table } from './toml.js';

/** Citations between packages: at most five documents deep, as in the reference. */
const MAX_REFERENCE_DEPTH = 5;

/**
 * Evidence citing a claim of another package (`family = "reference"`, kind `acceptance-claim`):
 * the cited package must be readable (else INDETERMINATE), match `manifest_hash`, validate, and
 * hold the claim evidenced. Its tier is the cited claim's tier.
 */
export async function checkReference(
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
    cited = await ctx.validateCited(parseDoc(bytes, e.manifest as string, abs), [...ctx.stack, digest]);
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
