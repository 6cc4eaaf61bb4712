/**
 * Capsules at the edges: saving a formal run's assets out of the container engine into files a
 * bundle streams in, and loading them back into an engine before a replay. Pure judgement (digests,
 * limits, names) lives in capsule.ts; this file only talks to dockerode and the file system.
 *
 * Export keeps nothing large in memory: the image tar from `docker.getImage(id).get()` is piped to a
 * scratch file while it is hashed, and the tar writer streams that file into the bundle.
 *
 * Restore trusts nothing the bundle says about identity: after `docker.loadImage`, the image the
 * engine reports loading must be the recorded id, and the tool tree hashed afresh from the loaded
 * image (a private, empty digest cache) must be the recorded checker digest. A matching tag proves
 * nothing and is never consulted; the profile's tag is only added, after both checks, where absent.
 */
import { createReadStream, createWriteStream, lstatSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import type Docker from 'dockerode';
import { containerSocket, dockerClient, dockerOptions, openSandbox } from '../checkers/container.js';
import { EXIT, invalid, VkitError } from '../errors.js';
import { isSha256Id, sha256Stream } from '../hash/index.js';
import { loadAnyProfile } from '../formal/profiles/index.js';
import type { Receipt } from '../store/receipt.js';
import {
  archiveEntryName,
  CAPSULE_LIMITS,
  imageEntryName,
  limitProblem,
  sealCapsule,
  treeEntryName,
  type CapsuleLimits,
  type CollectedAssets,
} from './capsule.js';
import type { ReadBundle } from './hostile.js';
import { refuse } from './refusal.js';
import type { BundleManifest, Capsule } from './manifest.js';
import { writeTar, type TarSource } from './tar.js';

type Env = Record<string, string | undefined>;
type CapsuleEntry = Capsule['entries'][number];

/** The profile's lookup reference for its worker image, when it uses one (Verus uses an id). */
const IMAGE_REFS: Record<string, string> = { 'coq-linux-x86_64-v1': 'localhost/vkit-coq-worker:1' };

function unavailable(message: string): VkitError {
  return new VkitError('ERR_ASSETS_UNAVAILABLE', EXIT.blocked, message, {
    hint: 'Start a container engine (`apt-get install podman`, then `podman system service --time=0 unix:///tmp/podman.sock &`) and point VKIT_CONTAINER_SOCKET at it (that socket is the default); `vkit doctor` says what this machine lacks.',
  });
}

/** What a formal (or model-checking) receipt says about its checker: profile, image id, tool-tree digest. */
export function formalIdentity(receipt: Receipt): { profile: string; image: string; checker: string } | undefined {
  const subject = receipt.subject as { formal?: Record<string, unknown>; model?: Record<string, unknown> } | undefined;
  const f = subject?.formal ?? subject?.model;
  if (!f || typeof f.profile !== 'string' || !isSha256Id(f.image) || !isSha256Id(f.checker_sha256)) return undefined;
  return { profile: f.profile, image: f.image, checker: f.checker_sha256 };
}

async function docker(env: Env): Promise<Docker> {
  const socket = containerSocket(env);
  const opts = dockerOptions(socket);
  if (!opts)
    throw unavailable(`Expected VKIT_CONTAINER_SOCKET to be unix:///PATH or tcp://HOST:PORT, got \`${socket}\``);
  const d = await dockerClient(opts);
  if ('unavailable' in d) throw new VkitError('ERR_ASSETS_UNAVAILABLE', EXIT.blocked, d.unavailable);
  try {
    await d.ping();
  } catch (error) {
    throw unavailable(`no container engine answering on ${socket} (${(error as Error).message})`);
  }
  return d;
}

/** Streams `input` to `file`, returning its size and sha256; never holds it in memory. */
async function streamToFile(
  input: NodeJS.ReadableStream,
  file: string,
  limit: number,
  entry: string,
): Promise<{ size: number; sha256: string }> {
  const hash = sha256Stream();
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > limit) return done(refuse(entry, `more than the capsule archive limit of ${limit} bytes`));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(input, meter, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
  return { size, sha256: hash.digest() };
}

/**
 * An expanded tool tree as one deterministic inner tar (regular files only, sorted), refusing a
 * link or special file, or more than the per-tree entry limit, naming it.
 */
export async function packToolTree(
  root: string,
  out: string,
  entry: string,
  limits: CapsuleLimits = CAPSULE_LIMITS,
): Promise<{ size: number; sha256: string; files: number }> {
  const files: TarSource[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const st = lstatSync(path);
      const rel = relative(root, path);
      if (st.isDirectory()) walk(path);
      else if (st.isFile()) files.push({ name: rel, size: st.size, file: path });
      else
        throw invalid(
          'ERR_ASSETS_REFUSED',
          `The tool tree ${root} holds \`${rel}\`, which is not a regular file or directory; a capsule carries regular files only`,
          { path: rel },
        );
      if (files.length > limits.entriesPerToolTree)
        throw refuse(
          entry,
          `the tool tree ${root} holds more than the limit of ${limits.entriesPerToolTree} entries per tool tree`,
        );
    }
  };
  walk(root);
  await writeTar(out, files, true);
  const hash = sha256Stream();
  let size = 0;
  for await (const c of createReadStream(out)) {
    hash.update(c as Buffer);
    size += (c as Buffer).length;
  }
  return { size, sha256: hash.digest(), files: files.length };
}

/**
 * Gathers the capsule of a formal run into `scratch`: the worker image by the id the run recorded
 * (its tool tree must still hash to the run's checker digest), and for the Verus profile the
 * official archive and the expanded tree. Refuses (exit 2) a run with no recorded checker; an
 * absent engine or a changed image is BLOCKED (exit 3).
 */
export async function collectCapsule(
  receipt: Receipt,
  scratch: string,
  env: Env = process.env,
  limits: CapsuleLimits = CAPSULE_LIMITS,
): Promise<CollectedAssets> {
  const id = formalIdentity(receipt);
  if (!id)
    throw invalid(
      'ERR_USAGE',
      `Run \`${receipt.run}\` recorded no worker image and checker digest (it stopped before its checker resolved): there is no capsule to include`,
      { path: '--include-assets' },
      'Export it without --include-assets, or export a run that reached its checker.',
    );
  const profile = await loadAnyProfile(id.profile);
  if (!profile)
    throw invalid('ERR_USAGE', `Run \`${receipt.run}\` used profile \`${id.profile}\`, which this vkit does not have`, {
      path: '--include-assets',
    });
  const d = await docker(env);
  const opened = await openSandbox(containerSocket(env));
  if ('unavailable' in opened) throw unavailable(opened.unavailable);
  if ((await opened.imageId(id.image)) !== id.image)
    throw unavailable(
      `the run's worker image ${id.image} is no longer in the container engine (${opened.socket}): it cannot be saved`,
    );
  const plan = await profile.checker(opened, env);
  const tree = await opened.toolTree(id.image, plan.toolPaths);
  if (tree.digest !== id.checker)
    throw unavailable(
      `the worker image ${id.image} now hashes to ${tree.digest}, not the run's checker digest ${id.checker}`,
    );

  const dir = mkdtempSync(join(scratch, 'capsule-'));
  const entries: CapsuleEntry[] = [];
  const sources: TarSource[] = [];
  const add = (e: CapsuleEntry, file: string) => {
    entries.push(e);
    sources.push({ name: e.name, size: e.size, file });
  };
  const imageName = imageEntryName(profile.id);
  const imageFile = join(dir, 'image.tar');
  const saved = await streamToFile(
    (await d.getImage(id.image).get()) as NodeJS.ReadableStream,
    imageFile,
    limits.archiveBytes,
    imageName,
  );
  add({ name: imageName, role: 'image', ...saved }, imageFile);

  if (profile.id.startsWith('verus-')) {
    // The Verus profile's host assets (never runnable on this machine; the path is still honest).
    const archive = env.VKIT_VERUS_ARCHIVE?.trim();
    const root = env.VKIT_VERUS_ROOT?.trim();
    if (!archive || !root)
      throw unavailable(
        `the Verus capsule needs VKIT_VERUS_ARCHIVE and VKIT_VERUS_ROOT (the archive and expanded tree the run used)`,
      );
    const archiveFile = join(dir, `archive-${basename(archive).replace(/[^A-Za-z0-9._-]/g, '_')}`);
    const a = await streamToFile(
      createReadStream(archive),
      archiveFile,
      limits.archiveBytes,
      archiveEntryName(profile.id),
    );
    add({ name: archiveEntryName(profile.id), role: 'archive', ...a }, archiveFile);
    const treeFile = join(dir, 'tool-tree.tar');
    const t = await packToolTree(root, treeFile, treeEntryName(profile.id), limits);
    add({ name: treeEntryName(profile.id), role: 'tool-tree', ...t }, treeFile);
  }
  const over = limitProblem(entries, limits);
  if (over) throw refuse(over.entry, over.message);
  const capsule = sealCapsule({
    profile: profile.id,
    kind: 'formal-assets',
    image: id.image,
    image_ref: IMAGE_REFS[profile.id] ?? null,
    checker_sha256: id.checker,
    tool_paths: plan.toolPaths,
    entries,
  });
  return { capsules: [capsule], sources };
}

/** Image ids a `loadImage` response names (podman: `Loaded image: sha256:<hex>`). */
export function loadedImageIds(response: string): { ids: string[]; refs: string[]; error?: string } {
  const ids: string[] = [];
  const refs: string[] = [];
  let error: string | undefined;
  for (const line of response.split('\n')) {
    if (!line.trim()) continue;
    let msg: { stream?: string; error?: string; errorDetail?: { message?: string } };
    try {
      msg = JSON.parse(line);
    } catch {
      msg = { stream: line };
    }
    if (msg.error) error = msg.errorDetail?.message ?? msg.error;
    for (const m of (msg.stream ?? '').matchAll(/Loaded image(?: ID)?s?: *([^\s,]+)/g)) {
      const name = m[1]!;
      if (/^(sha256:)?[0-9a-f]{64}$/.test(name)) ids.push(name.startsWith('sha256:') ? name : `sha256:${name}`);
      else refs.push(name);
    }
  }
  return error === undefined ? { ids, refs } : { ids, refs, error };
}

/**
 * Loads a checked bundle's capsules into the engine on VKIT_CONTAINER_SOCKET and proves each
 * loaded image is the recorded one, by id and by a freshly hashed tool tree. Returns what it did,
 * in words. Refuses (exit 2, naming the image entry) any mismatch; an image this restore loaded and
 * then refused is removed again.
 */
export async function restoreCapsules(
  manifest: BundleManifest,
  read: ReadBundle,
  scratch: string,
  env: Env = process.env,
): Promise<string[]> {
  const done: string[] = [];
  for (const c of manifest.assets.capsules) {
    const other = c.entries.find((e) => e.role !== 'image');
    if (other)
      throw refuse(
        other.name,
        `restoring a ${other.role} of profile \`${c.profile}\` is not supported by this vkit (only worker images are restored; the Verus profile cannot run on this host)`,
      );
    const img = c.entries.find((e) => e.role === 'image')!;
    const held = read.entries.get(img.name);
    if (!held?.file) throw refuse(img.name, 'the bundle reader did not keep it');
    const d = await docker(env);
    const present = async (ref: string) => {
      try {
        const info = await d.getImage(ref).inspect();
        return info.Id.startsWith('sha256:') ? info.Id : `sha256:${info.Id}`;
      } catch {
        return undefined;
      }
    };
    const before = await present(c.image);
    // Whatever this load adds and is then refused goes again; images that were there stay.
    const existing = new Set(
      (await d.listImages({ all: true })).map((i) => (i.Id.startsWith('sha256:') ? i.Id : `sha256:${i.Id}`)),
    );
    const stream = (await d.loadImage(createReadStream(held.file))) as NodeJS.ReadableStream;
    let text = '';
    for await (const chunk of stream) text += chunk.toString();
    const loaded = loadedImageIds(text);
    if (loaded.error) throw refuse(img.name, `the engine could not load it: ${loaded.error}`);
    for (const ref of loaded.refs) {
      const id = await present(ref);
      if (id) loaded.ids.push(id);
    }
    const discard = async (ids: string[]) => {
      for (const id of ids)
        if (!existing.has(id))
          await d
            .getImage(id)
            .remove({ force: false })
            .catch(() => undefined);
    };
    const wrong = loaded.ids.find((x) => x !== c.image);
    if (loaded.ids.length === 0 || wrong) {
      await discard(loaded.ids.filter((x) => x !== c.image));
      throw refuse(img.name, `the engine loaded ${wrong ?? 'no image it named'}, not the recorded image ${c.image}`);
    }
    const cacheDir = mkdtempSync(join(scratch, 'tooltree-'));
    mkdirSync(cacheDir, { recursive: true });
    const sandbox = await openSandbox(containerSocket(env), { cacheDir });
    if ('unavailable' in sandbox) throw unavailable(sandbox.unavailable);
    const tree = await sandbox.toolTree(c.image, c.tool_paths);
    if (tree.digest !== c.checker_sha256) {
      await discard([c.image]);
      throw refuse(
        img.name,
        `the loaded image ${c.image} has tool-tree digest ${tree.digest}, not the recorded checker digest ${c.checker_sha256}`,
      );
    }
    let tag = '';
    if (c.image_ref) {
      const current = await present(c.image_ref);
      if (current === undefined) {
        const at = c.image_ref.lastIndexOf(':');
        const [repo, t] =
          at > c.image_ref.lastIndexOf('/')
            ? [c.image_ref.slice(0, at), c.image_ref.slice(at + 1)]
            : [c.image_ref, 'latest'];
        await d.getImage(c.image).tag({ repo, tag: t });
        tag = `, tagged ${c.image_ref}`;
      } else if (current !== c.image)
        tag = `; ${c.image_ref} names another image (${current}), left as it is: the fresh check judges whatever the profile resolves`;
    }
    done.push(
      `${img.name}: image ${c.image} ${before ? 'was already present' : 'loaded'}, id and tool-tree digest ${c.checker_sha256} verified${tag}`,
    );
  }
  return done;
}
