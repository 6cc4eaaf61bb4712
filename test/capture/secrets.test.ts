/**
 * Secret-looking names (src/capture/secrets.ts): the one expression a capture asks (D59) answers as
 * the list of names, one expression at a time, does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSecretPath, SECRET_NAMES } from '../../src/capture/secrets.js';

const byList = (name: string) => SECRET_NAMES.some((re) => re.test(name));

test('the one expression answers as the list, for named cases and generated names', () => {
  const named = [
    '.env',
    '.env.local',
    '.envrc',
    'env',
    'a.env',
    'a.pem',
    'a.pem.bak',
    'x.PEM',
    'x.key',
    'x.keys',
    'k.p12',
    'k.pfx',
    'id_rsa',
    'id_ed25519.pub',
    'ID_RSA',
    'iD_rsa',
    'my-CREDENTIALS.json',
    'Credentials',
    'cReDeNtIaLs',
    'credential',
    '.npmrc',
    '.npmrc.bak',
    '.netrc',
    '.pgpass',
    'pgpass',
    'foo',
    '',
  ];
  for (const name of named) assert.equal(isSecretPath(`d/${name}`), byList(name), name);
  assert.equal(isSecretPath('dir.pem/plain.txt'), false, 'only the last component counts');
  // Names built from the pieces the expressions look for, in any order and case.
  const pieces = [
    '.env',
    '.',
    'pem',
    'key',
    'p12',
    'pfx',
    'id_',
    'rsa',
    'ED25519',
    'Cred',
    'entials',
    'npmrc',
    'netrc',
    'pgpass',
    'x',
    '-',
  ];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  let secret = 0;
  for (let i = 0; i < 20000; i++) {
    let name = '';
    for (let n = next() % 4; n >= 0; n--) name += pieces[next() % pieces.length];
    if (next() % 3 === 0) name = name.toUpperCase();
    assert.equal(isSecretPath(`a/b/${name}`), byList(name), name);
    if (byList(name)) secret++;
  }
  assert.ok(secret > 1000, `the generated names include secret-looking ones (${secret})`);
});
