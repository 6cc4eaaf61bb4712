/**
 * A resident process remembers the manifest it validated, by the config's exact bytes
 * (`rememberManifests`, load.ts): the same bytes give an equal manifest, each load its own copy;
 * any other bytes are parsed and validated anew, errors included.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig, rememberManifests } from '../../src/config/load.js';
import { InvalidInputError } from '../../src/errors.js';
import '../_support/repo.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'vkit-remembered-')));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'vkit.manifest.json');
const manifest = (ids: string[]) =>
  `${JSON.stringify({ checks: ids.map((id) => ({ id, run: ['node', '-e', '0'], inputs: ['a.txt'] })) }, null, 2)}\n`;
interface Check {
  id: string;
  run: string[];
}
const checksOf = (config: { manifest: unknown }) => (config.manifest as { checks: Check[] }).checks;
const ids = async () => checksOf(await loadConfig(dir)).map((c) => c.id);

rememberManifests();

test('the same bytes give an equal manifest, each load its own copy: changing one leaves the next as the file says', async () => {
  writeFileSync(file, manifest(['a', 'b']));
  const first = await loadConfig(dir);
  checksOf(first)[0]!.run = ['node', '-e', 'process.exit(1)'];
  checksOf(first).pop();
  const second = await loadConfig(dir);
  assert.deepEqual(
    checksOf(second).map((c) => [c.id, c.run]),
    [
      ['a', ['node', '-e', '0']],
      ['b', ['node', '-e', '0']],
    ],
  );
  assert.equal(second.policyDigest, first.policyDigest);
  assert.notEqual(second.manifest, first.manifest);
});

test('other bytes are read anew, an invalid file is refused, and the first bytes again give the first manifest', async () => {
  writeFileSync(file, manifest(['a', 'b']));
  const before = await loadConfig(dir);
  // Same length, one id renamed: nothing but the bytes tells the two apart.
  writeFileSync(file, manifest(['a', 'c']));
  assert.deepEqual(await ids(), ['a', 'c']);
  assert.notEqual((await loadConfig(dir)).policyDigest, before.policyDigest);
  writeFileSync(file, manifest(['a', 'a']));
  await assert.rejects(loadConfig(dir), (e) => e instanceof InvalidInputError && /Duplicate id/.test(e.message));
  writeFileSync(file, manifest(['a', 'b']));
  assert.deepEqual(await ids(), ['a', 'b']);
  assert.equal((await loadConfig(dir)).policyDigest, before.policyDigest);
});
