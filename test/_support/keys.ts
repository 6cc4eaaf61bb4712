/** Ed25519 key files as `openssl genpkey -algorithm ed25519` writes them: PKCS#8 private, SPKI public. */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function keyFiles(dir: string, name: string): { key: string; pub: string; privateKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const key = join(dir, `${name}.key.pem`);
  const pub = join(dir, `${name}.pub.pem`);
  writeFileSync(key, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }));
  return { key, pub, privateKey };
}
