/** `vkit cache status` and `vkit policy trust-signer`. Declarations only; `table.ts` binds them to `../cache.ts`. */
import { defineVerb } from '../../kit/verb.js';

export const cacheStatus = defineVerb({
  name: 'cache status',
  summary: 'the shared remote cache: URL, whether it answers, this machine’s signing key, the trusted signers',
  flags: { root: { type: 'string' }, json: { type: 'boolean', default: false }, remote: { type: 'string' } },
  help: `Usage: vkit cache status [--remote URL] [--root DIR] [--json]

Says which remote cache a build would use (--remote, else VKIT_REMOTE), whether it answers the
protocol (a HEAD of a blob nobody has: 200 or 404), the key id of this machine's signing key
(VKIT_SIGNING_KEY; without one nothing is uploaded) and the trusted signers of vkit.lock.json
(only entries they signed are ever used). Reads nothing from the store.

Exit codes: 0 printed (even when the remote does not answer), 2 an invalid key or lock, 4 internal error.
`,
});

export const trustSigner = defineVerb({
  name: 'policy trust-signer',
  label: 'policy trust-signer KEYFILE',
  summary: 'trust a writer of remote evidence: add its public key to vkit.lock.json (or --remove KEYID)',
  flags: {
    root: { type: 'string' },
    json: { type: 'boolean', default: false },
    name: { type: 'string' },
    remove: { type: 'string' },
  },
  positionals: true,
  help: `Usage: vkit policy trust-signer KEYFILE [--name NAME] [--root DIR] [--json]
       vkit policy trust-signer --remove KEYID [--root DIR] [--json]

Adds the Ed25519 public key in KEYFILE (SPKI PEM, as \`openssl pkey -in KEY.pem -pubout\` writes it;
given a private key, only its public half is kept) to vkit.lock.json's trusted_signers, under its
key id (sha256 of the SPKI DER). Commit the change: trusting a writer is a reviewed change like any
policy. Remote entries signed by any other key are never used. --remove KEYID stops trusting a key
at once; evidence already imported into a local store stays there as that store's own.

  --name NAME     a label for the key (who holds it), shown with remote hits

Exit codes: 0 written (or unchanged), 2 an unreadable or non-Ed25519 key, an unknown KEYID, or an invalid lock, 4 internal error.
`,
});

export const cachePush = defineVerb({
  name: 'cache push',
  summary: 'upload existing evidence to the shared remote cache, signed with VKIT_SIGNING_KEY',
  flags: {
    root: { type: 'string' },
    store: { type: 'string' },
    json: { type: 'boolean', default: false },
    remote: { type: 'string' },
    run: { type: 'string', multiple: true },
  },
  help: `Usage: vkit cache push [--run ID]... [--remote URL] [--root DIR] [--store DIR] [--json]

Uploads evidence already in the store: each named run's receipt, or without --run every item's
latest one, when it is an intact PASS or FAIL (BLOCKED results and provisional formal evidence are
never shared). Blobs the server lacks go first, then the DSSE envelope signed with the key in the
file VKIT_SIGNING_KEY names. The remote is --remote, else VKIT_REMOTE, else the config's remote.url.

Exit codes: 0 every result uploaded, 2 no remote, no signing key or an unknown run, 3 an upload failed, 4 internal error.
`,
});
