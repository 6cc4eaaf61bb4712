/**
 * A refusal is the answer, whatever else was in flight. A hostile entry often arrives while write
 * streams for the entries before it are still opening in the scratch directory; replay must close
 * every one of them before the scratch directory is removed, so the refusal (ERR_BUNDLE_REFUSED,
 * exit 2) is never replaced by a removal error (ENOTEMPTY, exit 4) and no scratch directory is left
 * behind. 200 seeded hostile bundles, each with many small entries ahead of its hostile one.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { InvalidInputError } from '../../src/errors.js';
import { replayEvidence } from '../../src/service/evidence.js';
import { openOpts } from '../_support/evidence.js';
import { tempRepo } from '../_support/repo.js';
import { prng as seeded } from '../_support/random.js';
import { bundleManifest, rawEntry } from './_tar.js';

const BUNDLES = 200;
/** A digit inside the header's checksum field. */
const CHECKSUM_DIGIT = 150;

const FLAGS = ['Z', 'S', 'L', 'K', 'x', 'g', '1', '2', '3', '4', '5', '6', '7'];

/** Seed -> a bundle: the manifest, 10 to 90 listed entries written in full, then one hostile entry. */
function hostileBundle(seed: number): Buffer {
  const rnd = seeded(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const bodies: Record<string, string> = {};
  const count = 10 + Math.floor(rnd() * 80);
  for (let i = 0; i < count; i++)
    bodies[`artifacts/e${String(i).padStart(4, '0')}`] = `entry ${seed}/${i}\n`.repeat(1 + Math.floor(rnd() * 4));
  const late = 'listed, comes last\n';
  const entries = [
    rawEntry('manifest.json', '0', bundleManifest({ ...bodies, 'late.bin': late })),
    ...Object.entries(bodies).map(([name, body]) => rawEntry(name, '0', body)),
  ];
  const hostile: Array<() => Buffer> = [
    () => rawEntry('../escaped', '0', late),
    () => rawEntry(`/tmp/vkit-absolute-escape-${seed}`, '0', late),
    () => rawEntry(`../typed-${seed}`, pick(FLAGS), late),
    () => rawEntry(Object.keys(bodies)[0]!, '0', bodies[Object.keys(bodies)[0]!]!),
    () => rawEntry('not-listed.bin', '0', late),
    () => rawEntry('late.bin', '0', `${late}longer`),
    () => rawEntry('late.bin', '0', late.toUpperCase()),
    () => {
      const bad = rawEntry('late.bin', '0', late);
      bad[CHECKSUM_DIGIT] ^= 1; // another octal digit: the header's checksum no longer matches
      return bad;
    },
  ];
  return Buffer.concat([...entries, pick(hostile)(), Buffer.alloc(1024)]);
}

test(`${BUNDLES} seeded hostile bundles: every replay is refused (ERR_BUNDLE_REFUSED) and leaves no scratch directory`, async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.manifest({ checks: [{ id: 'a', run: ['true'], inputs: ['a.txt'] }] });
  const dir = mkdtempSync(join(tmpdir(), 'vkit-replay-race-'));
  const scratchParent = join(dir, 'tmp');
  mkdirSync(scratchParent);
  const savedTmp = process.env.TMPDIR;
  // Replay makes its scratch directory under the temp directory: a private one shows what it leaves.
  process.env.TMPDIR = scratchParent;
  const wrong: string[] = [];
  try {
    for (let seed = 1; seed <= BUNDLES; seed++) {
      const file = join(dir, `hostile-${seed}.tar`);
      writeFileSync(file, hostileBundle(seed));
      try {
        await replayEvidence(openOpts(repo), { file });
        wrong.push(`seed ${seed}: replayed without a refusal`);
      } catch (error) {
        if (!(error instanceof InvalidInputError) || error.code !== 'ERR_BUNDLE_REFUSED')
          wrong.push(
            `seed ${seed}: ${(error as Error).name} ${(error as { code?: string }).code}: ${(error as Error).message}`,
          );
      }
      const left = readdirSync(scratchParent);
      if (left.length) wrong.push(`seed ${seed}: left ${left.join(', ')}`);
      rmSync(scratchParent, { recursive: true, force: true, maxRetries: 10 });
      mkdirSync(scratchParent);
      rmSync(file);
    }
  } finally {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
    repo.cleanup();
  }
  assert.deepEqual(wrong, []);
});
