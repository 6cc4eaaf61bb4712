/**
 * Ed25519 signing keys for remote evidence, in the PEM forms `openssl genpkey -algorithm ed25519`
 * writes (PKCS#8 private, SPKI public). A key is named by its key id: the sha256 of its SPKI DER
 * encoding, so the same public key has the same id wherever it is written down.
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { invalid } from '../errors.js';

export interface PublicKey {
  keyid: string;
  /** SPKI PEM, as `vkit.lock.json` records it. */
  pem: string;
  key: KeyObject;
}

export interface SigningKey extends PublicKey {
  privateKey: KeyObject;
}

/** `sha256:<hex>` of the SPKI DER encoding of an Ed25519 public key. */
function keyIdOf(key: KeyObject): string {
  return `sha256:${createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('hex')}`;
}

function publicOf(key: KeyObject): PublicKey {
  return { keyid: keyIdOf(key), pem: key.export({ type: 'spki', format: 'pem' }).toString(), key };
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw invalid('ERR_KEY_INVALID', `Cannot read the ${what}: ${(error as Error).message}`, { file });
  }
}

/** The signing key in `file` (PKCS#8 PEM, Ed25519); anything else is exit 2 naming the file. */
export function readSigningKey(file: string): SigningKey {
  const text = readText(file, 'signing key');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: text, format: 'pem' });
  } catch (error) {
    throw invalid(
      'ERR_KEY_INVALID',
      `Not a PEM private key: ${(error as Error).message}`,
      { file },
      'Write one with `openssl genpkey -algorithm ed25519 -out KEY.pem`.',
    );
  }
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw invalid('ERR_KEY_INVALID', `Expected an Ed25519 key, got ${privateKey.asymmetricKeyType}`, { file });
  return { ...publicOf(createPublicKey(privateKey)), privateKey };
}

/**
 * A public key from PEM text: SPKI (`-----BEGIN PUBLIC KEY-----`), or the public half of a PKCS#8
 * private key (what `vkit policy trust-signer` may be handed; only the public half is ever kept).
 */
export function parsePublicKey(text: string, where: { file?: string; path?: string } = {}): PublicKey {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: text, format: 'pem' });
  } catch (error) {
    throw invalid(
      'ERR_KEY_INVALID',
      `Not a PEM public key: ${(error as Error).message}`,
      where,
      'Give the SPKI PEM (`openssl pkey -in KEY.pem -pubout`).',
    );
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw invalid('ERR_KEY_INVALID', `Expected an Ed25519 key, got ${key.asymmetricKeyType}`, where);
  return publicOf(key);
}

export function readPublicKey(file: string): PublicKey {
  return parsePublicKey(readText(file, 'public key'), { file });
}
