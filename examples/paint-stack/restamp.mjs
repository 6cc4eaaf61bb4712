#!/usr/bin/env node
// Fills every digest and hash of the paint-stack documents from the bytes on disk, in binding
// order (crates -> specifications -> packages -> decisions), by splicing the values into the
// existing text so comments and layout stay. Self-contained (node:crypto + git), so it is also an
// independent implementation of the crate digest the tests compare vkit against.
//
//   node restamp.mjs                 # keep the app's recorded [subject] commit
//   node restamp.mjs --commit HEAD   # record a commit (resolved with git rev-parse)
//
// Run it from examples/paint-stack/ after changing a crate or a document, then re-issue (here:
// re-stamp) the decisions. It never decides anything: it only writes hashes.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const m11 = (domain, bytes) => `${domain}:sha-512:${createHash('sha512').update(`${domain}:`).update(bytes).digest('hex')}`;

function listFiles(dir) {
  let files;
  try {
    files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\0').filter(Boolean);
  } catch {
    const walk = (rel) => readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
      const p = rel ? `${rel}/${e.name}` : e.name;
      return e.isDirectory() ? walk(p) : [p];
    });
    files = walk('');
  }
  return [...new Set(files)].filter((f) => !(f === 'target' || f.startsWith('target/') || f === '.git' || f.startsWith('.git/')));
}

/** Crate digest: `<path> NUL <sha-512 hex>\n` per file, sorted bytewise, domain subject. */
export function crateDigest(dir) {
  const lines = [];
  for (const rel of listFiles(dir)) {
    const abs = join(dir, rel);
    let st;
    try {
      st = lstatSync(abs);
    } catch {
      continue;
    }
    const bytes = st.isSymbolicLink() ? Buffer.from(readlinkSync(abs)) : readFileSync(abs);
    lines.push({ path: rel, hex: createHash('sha512').update(bytes).digest('hex') });
  }
  lines.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  return m11('subject', lines.map((l) => `${l.path}\0${l.hex}\n`).join(''));
}

/**
 * Rewrites one document: `[subject] digest|commit`, `[specification] hash`, inventory element
 * digests (by element name), evidence `record_hash` (record relative to the document) and
 * `inputs` digests (relative to the subject directory), and a decision's `[binds]`.
 */
function stamp(file, { subjectDir, subjectDigest, commit, specHash, pkgHash, crates }) {
  const lines = readFileSync(file, 'utf8').split('\n');
  let header = '';
  let element;
  let record;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const h = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (h && !/=/.test(line.split('#')[0])) {
      header = h[1];
      element = undefined;
      record = undefined;
      continue;
    }
    const set = (key, value) => (lines[i] = line.replace(new RegExp(`^(\\s*${key}\\s*=\\s*")[^"]*(")`), `$1${value}$2`));
    if (header === 'subject' && subjectDigest && /^\s*digest\s*=/.test(line)) set('digest', subjectDigest);
    if (header === 'subject' && commit && /^\s*commit\s*=/.test(line)) set('commit', commit);
    if (header === 'specification' && specHash && /^\s*hash\s*=/.test(line)) set('hash', specHash);
    if (header === 'inventory.element') {
      const n = /^\s*name\s*=\s*"([^"]+)"/.exec(line);
      if (n) element = n[1];
      if (/^\s*digest\s*=/.test(line) && element) set('digest', crates[element]);
    }
    if (header === 'claim.evidence') {
      const r = /^\s*record\s*=\s*"([^"]+)"/.exec(line);
      if (r) record = r[1];
      if (/^\s*record_hash\s*=/.test(line) && record) set('record_hash', m11('record', readFileSync(join(dirname(file), record))));
      if (/^\s*inputs\s*=/.test(line)) lines[i] = line.replace(/path = "([^"]+)", digest = "([a-z-]+):sha-512:[0-9a-f]*"/g, (_, p, d) => `path = "${p}", digest = "${m11(d, readFileSync(join(subjectDir, p)))}"`);
    }
    if (header === 'binds') {
      if (specHash) lines[i] = lines[i].replace(/^(\s*specification\s*=.*hash\s*=\s*")[^"]*/, `$1${specHash}`);
      if (pkgHash) lines[i] = lines[i].replace(/^(\s*package\s*=.*hash\s*=\s*")[^"]*/, `$1${pkgHash}`);
      if (subjectDigest) lines[i] = lines[i].replace(/^(\s*subject\s*=\s*\{\s*digest\s*=\s*")[^"]*/, `$1${subjectDigest}`);
      if (commit) lines[i] = lines[i].replace(/^(\s*subject\s*=\s*\{\s*commit\s*=\s*")[^"]*/, `$1${commit}`);
    }
  }
  writeFileSync(file, lines.join('\n'));
}

function main() {
  const args = process.argv.slice(2);
  const at = args.indexOf('--commit');
  const commit = at >= 0 ? execFileSync('git', ['rev-parse', '--verify', `${args[at + 1]}^{commit}`], { cwd: here, encoding: 'utf8' }).trim() : undefined;
  const crates = {};
  for (const name of readdirSync(join(here, 'crates'))) crates[name] = crateDigest(join(here, 'crates', name));
  const store = join(here, 'store', 'ochre-accepted');
  const docs = [...readdirSync(store).map((lib) => ({ dir: join(store, lib), subjectDir: join(here, 'crates', lib), subjectDigest: crates[lib] })), { dir: join(here, 'paint-app'), subjectDir: join(here, 'crates', 'paint-app'), commit }];
  for (const d of docs) {
    const specHash = m11('specification', readFileSync(join(d.dir, 'acceptance-specification.toml')));
    stamp(join(d.dir, 'acceptance-package.toml'), { ...d, specHash, crates });
    const pkgHash = m11('manifest', readFileSync(join(d.dir, 'acceptance-package.toml')));
    stamp(join(d.dir, 'acceptance-decision.toml'), { ...d, specHash, pkgHash, crates });
  }
  for (const [name, digest] of Object.entries(crates)) console.log(`${name} ${digest}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
