/**
 * Secret-looking paths. Registered-check selectors skip them; formal captures refuse them. Neither
 * looks at content: this guards against accidentally hashing (and retaining) a key file, nothing more.
 */
const SECRET_NAMES = [
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

export function isSecretPath(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return SECRET_NAMES.some((re) => re.test(name));
}
