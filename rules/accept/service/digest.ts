/**
 * `vkit acceptance digest`: the M11 digest users need to fill binding fields. A file is digested
 * over its bytes; a directory only in domain `subject`, where it means what `[subject] digest`
 * means (acceptance-details.md §4: the listing of its files, each with its SHA-512, hashed in
 * domain `subject`), computed by the same function check-package uses to verify it.
 */
import { readFile, stat } from 'node:fs/promises';
import { invalid } from '../../../src/errors.js';
import { m11Digest, M11_DOMAINS, type M11Domain } from '../../../src/hash/index.js';
import { crateDigest, DigestError } from '../lib/stack/crate-digest.js';

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
  const digest = (await isDirectory(file))
    ? await directoryDigest(domain as M11Domain, file, shown)
    : m11Digest(domain as M11Domain, await bytesOf(file, shown));
  return { schema: 'vkit.acceptance-digest/1', file: shown, domain: domain as M11Domain, digest };
}

async function isDirectory(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isDirectory();
  } catch {
    return false; // reading it says what is wrong
  }
}

async function bytesOf(file: string, shown: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw invalid('ERR_USAGE', `Cannot read \`${shown}\`: ${(error as Error).message}`, { file: shown });
  }
}

async function directoryDigest(domain: M11Domain, dir: string, shown: string): Promise<string> {
  if (domain !== 'subject')
    throw invalid(
      'ERR_USAGE',
      `\`${shown}\` is a directory: only --domain subject digests a directory (the listing of its files, as [subject] digest names it); --domain ${domain} takes a file`,
      { file: shown },
    );
  try {
    return (await crateDigest(dir)).digest;
  } catch (error) {
    if (!(error instanceof DigestError)) throw error;
    throw invalid('ERR_USAGE', `Cannot digest the directory \`${shown}\`: ${error.message}`, { file: shown });
  }
}
