/** `vkit acceptance ...` verbs. So far: `digest`, the M11 digest users need to fill binding fields. */
import { readFile } from 'node:fs/promises';
import { invalid } from '../../errors.js';
import { m11Digest, M11_DOMAINS, type M11Domain } from '../../hash/index.js';

export async function acceptanceDigest(
  domain: string,
  file: string,
  shown = file,
): Promise<{ schema: 'vkit.acceptance-digest/1'; file: string; domain: M11Domain; digest: string }> {
  if (!(M11_DOMAINS as readonly string[]).includes(domain)) {
    throw invalid('ERR_USAGE', `Expected --domain to be one of ${M11_DOMAINS.join(', ')}, got \`${domain}\``, {
      path: '--domain',
    });
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw invalid('ERR_USAGE', `Cannot read \`${shown}\`: ${(error as Error).message}`, { file: shown });
  }
  return {
    schema: 'vkit.acceptance-digest/1',
    file: shown,
    domain: domain as M11Domain,
    digest: m11Digest(domain as M11Domain, bytes),
  };
}
