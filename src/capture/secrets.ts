/**
 * Secret-looking paths. Registered-check selectors skip them; formal captures refuse them. Neither
 * looks at content: this guards against accidentally hashing (and retaining) a key file, nothing more.
 */
export const SECRET_NAMES: readonly RegExp[] = [
  /^\.env/, // .env, .env.local, .envrc
  /\.pem$/,
  /\.key$/,
  /\.p12$/,
  /\.pfx$/,
  /^id_(rsa|dsa|ecdsa|ed25519)/,
  /credentials/i,
  /^\.npmrc$/,
  /^\.netrc$/,
  /^\.pgpass$/,
];

/**
 * The names above as one expression, asked once per path (every listed input is asked, twice at
 * 11,000 inputs: ten expressions cost ~10 ms more, D59). `credentials` is matched in any case by
 * spelling each letter's two cases, as its `i` flag does (the only flag the list uses, on letters
 * alone); a test checks the two answer alike.
 */
const SECRET_NAME = new RegExp(
  SECRET_NAMES.map((re) =>
    re.flags.includes('i') ? re.source.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`) : re.source,
  ).join('|'),
);

export function isSecretPath(path: string): boolean {
  return SECRET_NAME.test(path.slice(path.lastIndexOf('/') + 1));
}
