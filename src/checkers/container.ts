/**
 * The sandbox: restricted containers through the Docker API (dockerode), served here by podman
 * (`podman system service --time=0 unix:///tmp/podman.sock`). Every container it runs has no network, a read-only root, uid and
 * gid 65534, no capabilities, no privilege gain, memory and pid limits, a private tmpfs on /tmp
 * (ocamlopt needs one) and exactly the binds the request names. It is created, started, waited for,
 * its logs read, and removed by vkit (never AutoRemove: the logs must be read before removal).
 *
 * Failures to run are results (`startError`, `timedOut`, `cancelled`), never exceptions, so a
 * profile can turn each into a BLOCKED outcome naming it. Cancellation and recovery find an
 * attempt's containers by name (`vkit-<attempt id>-<step>`) and touch nothing else.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { CONTAINERS, importOptional } from '../config/optional-package.js';
import { hexOf, isSha256Id, jsonId } from '../hash/index.js';
import { checkToolPaths, toolTreeFromTar } from './tar-tree.js';

/* ---------------------------------------------------------------- the sandbox contract (what formal profiles use) */

export interface Bind {
  /** Absolute host path. */
  host: string;
  /** Absolute path inside the container. */
  container: string;
  readOnly: boolean;
}

export interface ContainerRequest {
  /** Full `sha256:` image id (never a tag: a tag can move). */
  image: string;
  argv: string[];
  binds: Bind[];
  workdir: string;
  env?: Record<string, string>;
  timeoutMs: number;
  /** Defaults: 2 GiB memory, 512 pids. */
  memoryBytes?: number;
  pidsLimit?: number;
  signal: AbortSignal;
  /**
   * The container's name, derived from the attempt (`vkit-<attempt id>-<step>`): cancellation and
   * recovery find and kill only the attempt's own containers by this prefix.
   */
  name: string;
}

export interface ContainerResult {
  /** null when killed (timeout, cancel) or never started. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
  /** Set when the engine refused to create or start the container. */
  startError?: string;
}

/** The one thing profiles use to execute: a restricted container (no network, read-only root, uid 65534, no capabilities). */
export interface Sandbox {
  /** Socket the engine answers on, for messages. */
  readonly socket: string;
  run(req: ContainerRequest): Promise<ContainerResult>;
  /** The full image id of a local image reference, or undefined when it is not installed. */
  imageId(ref: string): Promise<string | undefined>;
  /**
   * Digest of the tool tree inside an image: sorted (path, mode, sha256) of every regular file and
   * symlink under `paths`, so an image rebuilt from the same packages matches. Cached per image id.
   */
  toolTree(imageId: string, paths: readonly string[]): Promise<ToolTree>;
}

export interface ToolTree {
  /** `sha256:<hex>` over the canonical listing. */
  digest: string;
  entries: number;
  /** Version lines of the main tools (e.g. `coqc --version`), for the receipt's inventory. */
  versions?: Record<string, string>;
}

/* ---------------------------------------------------------------- the sandbox, served by podman */

export const DEFAULT_SOCKET = 'unix:///tmp/podman.sock';
const DEFAULT_MEMORY = 2 * 1024 ** 3;
const DEFAULT_PIDS = 512;
/** Bytes of stdout and of stderr kept from a container; the rest is cut with a note. */
export const LOG_LIMIT = 1024 * 1024;
/** Bytes the engine's log file may reach while the container runs (podman rotates it in place). */
const LOG_FILE_LIMIT = 8 * 1024 * 1024;
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const PING_TIMEOUT_MS = 5_000;

/** The sandbox plus what cancellation and recovery need. */
export interface ContainerSandbox extends Sandbox {
  /**
   * Kills and removes every container named `prefix` or `prefix-...` (the boundary is a `-`, so
   * `vkit-a1` never matches `vkit-a12-build`). Returns the names of those now gone (removed here, or by the run that owned it after this kill).
   */
  killByPrefix(prefix: string): Promise<string[]>;
}

export interface SandboxOptions {
  /** Where tool-tree digests are cached, one JSON file per image id. @default {@link toolTreeCacheDir} */
  cacheDir?: string;
}

/** The socket from `VKIT_CONTAINER_SOCKET`, else `unix:///tmp/podman.sock`. */
export function containerSocket(env: Record<string, string | undefined> = process.env): string {
  return env.VKIT_CONTAINER_SOCKET || DEFAULT_SOCKET;
}

/**
 * The tool-tree cache: `$VKIT_TOOL_TREE_CACHE`, else `$XDG_CACHE_HOME/vkit/tool-trees`, else
 * `~/.cache/vkit/tool-trees`. A cache entry is keyed by the full image id (a digest of the image's
 * config, which names its layers' digests), so it can only be reused for the same image content.
 */
export function toolTreeCacheDir(env: Record<string, string | undefined> = process.env): string {
  if (env.VKIT_TOOL_TREE_CACHE) return env.VKIT_TOOL_TREE_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'vkit', 'tool-trees');
}

/** Docker client options for a socket URL: `unix:///path`, a bare absolute path, or `tcp://host:port`. */
export function dockerOptions(socket: string): Docker.DockerOptions | undefined {
  if (socket.startsWith('unix://')) return { socketPath: socket.slice('unix://'.length) };
  if (socket.startsWith('/')) return { socketPath: socket };
  const m = /^(?:tcp|http):\/\/([^:/]+):(\d+)\/?$/.exec(socket);
  if (m) return { host: m[1]!, port: Number(m[2]), protocol: 'http' };
  return undefined;
}

/**
 * A client of the Docker API, or why there is none: dockerode is an optional package (a project
 * without formal components never installs it), imported on first use and named when missing.
 */
export async function dockerClient(opts: Docker.DockerOptions): Promise<Docker | { unavailable: string }> {
  const loaded = await importOptional(CONTAINERS);
  if ('missing' in loaded) return { unavailable: loaded.missing };
  const { default: DockerClient } = loaded.modules[0] as { default: typeof Docker };
  return new DockerClient(opts);
}

/**
 * Connects to the engine on `socket` (default {@link containerSocket}). When nothing answers, the
 * result says so, naming the socket: formal items then turn BLOCKED rather than anything running
 * unrestricted.
 */
export async function openSandbox(
  socket?: string,
  options: SandboxOptions = {},
): Promise<ContainerSandbox | { unavailable: string }> {
  const where = socket ?? containerSocket();
  const opts = dockerOptions(where);
  if (!opts)
    return {
      unavailable: `Expected the container socket to be unix:///PATH or tcp://HOST:PORT, got \`${where}\` (VKIT_CONTAINER_SOCKET)`,
    };
  const docker = await dockerClient(opts);
  if ('unavailable' in docker) return docker;
  const problem = await ping(docker);
  if (problem !== undefined) {
    return {
      unavailable: `no container engine answering on ${where} (${problem}): start one (apt-get install podman, then podman system service --time=0 ${where} &) or point VKIT_CONTAINER_SOCKET at one that runs, and \`vkit doctor\` says what this machine lacks`,
    };
  }
  return new DockerSandbox(where, docker, options.cacheDir ?? toolTreeCacheDir());
}

async function ping(docker: Docker): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer in ${PING_TIMEOUT_MS / 1000} s`), PING_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      docker.ping().then(
        () => undefined,
        (error: Error & { code?: string }) => error.code ?? error.message,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The createContainer body for a request: every restriction in one place. */
export function containerSpec(req: ContainerRequest): Docker.ContainerCreateOptions {
  const memory = req.memoryBytes ?? DEFAULT_MEMORY;
  const env: Record<string, string> = { PATH: DEFAULT_PATH, HOME: '/tmp', ...req.env };
  return {
    name: req.name,
    Image: req.image,
    Cmd: req.argv,
    Entrypoint: [],
    WorkingDir: req.workdir,
    Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
    User: '65534:65534',
    NetworkDisabled: true,
    Tty: false,
    OpenStdin: false,
    Labels: { 'vkit.sandbox': '1' },
    HostConfig: {
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Privileged: false,
      Memory: memory,
      // No swap beyond the memory limit: the limit is the limit.
      MemorySwap: memory,
      PidsLimit: req.pidsLimit ?? DEFAULT_PIDS,
      // Tmpfs pages count against the memory limit, so /tmp cannot outgrow it.
      Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${memory}` },
      Binds: req.binds.map((b) => `${b.host}:${b.container}:${b.readOnly ? 'ro' : 'rw'}`),
      AutoRemove: false,
      // The engine keeps logs in a file until they are read; cap it so a flood cannot fill the disk.
      LogConfig: { Type: 'k8s-file', Config: { 'max-size': String(LOG_FILE_LIMIT) } },
    },
  };
}

class DockerSandbox implements ContainerSandbox {
  constructor(
    readonly socket: string,
    private readonly docker: Docker,
    private readonly cacheDir: string,
  ) {}

  async run(req: ContainerRequest): Promise<ContainerResult> {
    const none = { exitCode: null, stdout: '', stderr: '', timedOut: false, cancelled: false };
    const problem = requestProblem(req);
    if (problem) return { ...none, startError: problem };
    if (req.signal.aborted) return { ...none, cancelled: true };

    let container: Docker.Container;
    try {
      container = await this.docker.createContainer(containerSpec(req));
    } catch (error) {
      return { ...none, startError: `the engine refused to create container ${req.name}: ${engineMessage(error)}` };
    }
    let timedOut = false;
    let cancelled = false;
    const kill = () => container.kill({ signal: 'SIGKILL' }).catch(() => undefined);
    const onAbort = () => {
      cancelled = true;
      void kill();
    };
    let timer: NodeJS.Timeout | undefined;
    try {
      try {
        await container.start();
      } catch (error) {
        return { ...none, startError: `the engine could not start container ${req.name}: ${engineMessage(error)}` };
      }
      req.signal.addEventListener('abort', onAbort, { once: true });
      // An abort between create and the listener must not be lost.
      if (req.signal.aborted) onAbort();
      timer = setTimeout(() => {
        timedOut = true;
        void kill();
      }, req.timeoutMs);
      let status: number | null = null;
      try {
        // Bounded even if the engine never reports the end: the kill at the timeout gets a grace period.
        status = await exitStatus(container, req.timeoutMs + WAIT_GRACE_MS);
      } catch (error) {
        // The engine stopped answering (restart) or never reported the end: what ran is unknown, so the container goes.
        await kill();
        return {
          ...none,
          timedOut,
          cancelled,
          startError: `lost the wait on container ${req.name}: ${engineMessage(error)}`,
        };
      }
      clearTimeout(timer);
      req.signal.removeEventListener('abort', onAbort);
      // One reading is not trusted alone: under load the engine's wait reported 0 for a container
      // killed and removed from outside (a cancellation by prefix). The container's recorded state,
      // read again, must confirm that it exited by itself with that code.
      const confirmed = await confirmedExit(container, status);
      const logs = await readLogs(container);
      if (confirmed === undefined && !timedOut && !cancelled) {
        return {
          ...none,
          ...logs,
          startError: `container ${req.name} ended without a confirmed exit status (killed or removed from outside)`,
        };
      }
      return { exitCode: timedOut || cancelled ? null : (confirmed ?? null), ...logs, timedOut, cancelled };
    } finally {
      clearTimeout(timer);
      req.signal.removeEventListener('abort', onAbort);
      await container.remove({ force: true, v: true }).catch(() => undefined);
    }
  }

  async killByPrefix(prefix: string): Promise<string[]> {
    if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(prefix))
      throw new Error(`Expected a container name prefix (letters, digits, _ . -), got \`${prefix}\``);
    const list = await this.docker.listContainers({ all: true, filters: { name: [prefix] } });
    const removed: string[] = [];
    for (const info of list) {
      const name = (info.Names ?? [])
        .map((n) => n.replace(/^\//, ''))
        .find((n) => n === prefix || n.startsWith(`${prefix}-`));
      if (name === undefined) continue;
      const c = this.docker.getContainer(info.Id);
      await c.kill({ signal: 'SIGKILL' }).catch(() => undefined);
      try {
        await c.remove({ force: true, v: true });
      } catch (error) {
        // Gone already: the run that owned it saw it end (the kill above) and removed it first.
        if (statusOf(error) !== 404) throw error;
      }
      removed.push(name);
    }
    return removed;
  }

  async imageId(ref: string): Promise<string | undefined> {
    try {
      const info = await this.docker.getImage(ref).inspect();
      return info.Id.startsWith('sha256:') ? info.Id : `sha256:${info.Id}`;
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  async toolTree(imageId: string, paths: readonly string[]): Promise<ToolTree> {
    if (!isSha256Id(imageId)) throw new Error(`Expected a full image id (sha256:<64 hex>), got \`${imageId}\``);
    const selected = checkToolPaths(paths);
    const cached = readCache(this.cacheDir, imageId, selected);
    if (cached) return cached;

    const tree = await this.hashTree(imageId, selected);
    const present = new Set(tree.entries.map((e) => e.path));
    const versions = await this.toolVersions(imageId, selected, present);
    // The image's own environment reaches every process in it (COQLIB, LD_PRELOAD, OCAMLPARAM, ...):
    // a checker whose image sets any is another checker, even over the same files. An image without
    // one (the worker image) keeps the plain tree digest.
    const env = await this.imageEnv(imageId);
    const digest = env.length ? jsonId({ schema: 'vkit.tool-tree-env/1', tree: tree.digest, env }) : tree.digest;
    const result: ToolTree = {
      digest,
      entries: tree.entries.length,
      ...(Object.keys(versions).length ? { versions } : {}),
    };
    writeCache(this.cacheDir, imageId, selected, result);
    return result;
  }

  /** The image config's environment (`KEY=value`, sorted); empty when it sets none. */
  private async imageEnv(imageId: string): Promise<string[]> {
    const info = (await this.docker.getImage(imageId).inspect()) as { Config?: { Env?: string[] | null } | null };
    return [...(info.Config?.Env ?? [])].sort();
  }

  /** Exports a created, never started, container's filesystem and hashes the selected entries. */
  private async hashTree(imageId: string, paths: string[]) {
    const container = await this.docker.createContainer({
      name: `vkit-tooltree-${hexOf(imageId as `sha256:${string}`).slice(0, 12)}-${randomBytes(4).toString('hex')}`,
      Image: imageId,
      Cmd: ['/nonexistent'],
      Entrypoint: [],
      NetworkDisabled: true,
      HostConfig: { NetworkMode: 'none', AutoRemove: false },
    });
    try {
      const stream = (await container.export()) as AsyncIterable<Buffer>;
      return await toolTreeFromTar(stream, paths);
    } finally {
      await container.remove({ force: true, v: true }).catch(() => undefined);
    }
  }

  /** Version lines of the known tools present in the tree, each from a restricted container. */
  private async toolVersions(
    imageId: string,
    paths: string[],
    present: ReadonlySet<string>,
  ): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const [tool, argv] of VERSION_COMMANDS) {
      const binary = `/usr/bin/${tool}`;
      // Each worker image holds its own tools: a tool that is not in the hashed tree is not asked.
      if (!paths.some((p) => binary === p || binary.startsWith(`${p}/`)) || !present.has(binary)) continue;
      const r = await this.run({
        image: imageId,
        argv,
        binds: [],
        workdir: '/tmp',
        timeoutMs: 60_000,
        signal: new AbortController().signal,
        name: `vkit-tooltree-${hexOf(imageId as `sha256:${string}`).slice(0, 12)}-${tool}-${randomBytes(4).toString('hex')}`,
      });
      if (r.exitCode !== 0)
        throw new Error(
          `\`${argv.join(' ')}\` in image ${imageId} did not answer (${r.startError || r.stderr.trim() || `exit ${r.exitCode}`})`,
        );
      out[tool] = r.stdout.trim().split('\n')[0]!.trim();
    }
    return out;
  }
}

/** Tools whose version line goes into the inventory when their binary is in the tool tree. */
const VERSION_COMMANDS: [string, string[]][] = [
  ['coqc', ['coqc', '--version']],
  ['ocamlfind', ['ocamlfind', 'ocamlopt', '-version']],
  ['ocamlopt', ['ocamlopt', '-version']],
  ['spin', ['spin', '-V']],
  ['gcc', ['gcc', '-dumpfullversion']],
];

const WAIT_GRACE_MS = 30_000;

/** The first poll comes soon (most steps are short); later ones back off to this interval. */
const POLL_FIRST_MS = 25;
const POLL_MAX_MS = 250;

/**
 * Waits for a started container to end by polling its state, not through the engine's wait
 * endpoint: podman 4.3's compatible `wait` busy-loops in the service for as long as the container
 * runs (measured: 14 s of service CPU for a 10 s `sleep` on two cores, none with this poll), which
 * starved the very checkers it waited for. Throws when the state cannot be read (the engine went
 * away) or the container has not ended within `limitMs`.
 */
async function exitStatus(container: Docker.Container, limitMs: number): Promise<number | null> {
  const until = Date.now() + limitMs;
  for (let interval = POLL_FIRST_MS; ; interval = Math.min(POLL_MAX_MS, Math.ceil(interval * 1.5))) {
    let state: Docker.ContainerInspectInfo['State'] | undefined;
    try {
      state = (await container.inspect()).State;
    } catch (error) {
      // Removed from outside: it ended, with no status anyone can confirm.
      if (statusOf(error) === 404) return null;
      throw error;
    }
    if (state && hasEnded(state)) return typeof state.ExitCode === 'number' ? state.ExitCode : null;
    if (state?.Status === 'dead') return null;
    if (Date.now() >= until) throw new Error(`no exit reported ${limitMs} ms after the start`);
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/**
 * Ended with a final exit code: `exited`, or podman's `stopped` (exited, cleanup pending). Never
 * `stopping`: podman reports it, not running and with exit code 0, while a `podman stop` is still
 * waiting for the process (measured), and taking that 0 would pass a step that never finished.
 */
function hasEnded(state: { Status: string; Running: boolean }): boolean {
  return !state.Running && (state.Status === 'exited' || state.Status === 'stopped');
}

function requestProblem(req: ContainerRequest): string | undefined {
  if (!isSha256Id(req.image))
    return `Expected the container image to be a full image id (sha256:<64 hex>), got \`${req.image}\``;
  if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(req.name))
    return `Expected a container name of letters, digits, _ . -, got \`${req.name}\``;
  if (req.argv.length === 0) return 'Expected a command (argv) for the container, got none';
  for (const b of req.binds) {
    if (!b.host.startsWith('/') || !b.container.startsWith('/') || /[:,]/.test(b.host + b.container)) {
      return `Expected bind paths to be absolute without ':' or ',', got \`${b.host}\` -> \`${b.container}\``;
    }
  }
  if (!(req.timeoutMs > 0)) return `Expected a positive timeout, got ${req.timeoutMs} ms`;
  return undefined;
}

/** Reads a stopped container's logs, demultiplexed, at most {@link LOG_LIMIT} bytes of each stream. */
async function readLogs(container: Docker.Container): Promise<{ stdout: string; stderr: string }> {
  let raw: Buffer;
  try {
    // follow: a stream we can stop reading once enough arrived, so a flood cannot fill memory.
    const stream = (await container.logs({ stdout: true, stderr: true, follow: true })) as NodeJS.ReadableStream & {
      destroy?: () => void;
    };
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > 2 * LOG_LIMIT + 64 * 1024) {
        stream.destroy?.();
        break;
      }
    }
    raw = Buffer.concat(chunks);
  } catch (error) {
    return { stdout: '', stderr: `(vkit: could not read the container's logs: ${engineMessage(error)})` };
  }
  return demuxLogs(raw, LOG_LIMIT);
}

/**
 * Splits the Docker log stream (frames of `[stream, 0, 0, 0, size u32 BE]` + payload; 1 stdout,
 * 2 stderr) into text, keeping at most `limit` bytes of each. A cut frame at the end is kept as far
 * as it goes; a cut stream says so.
 */
export function demuxLogs(raw: Buffer, limit: number): { stdout: string; stderr: string } {
  const parts: Record<1 | 2, Buffer[]> = { 1: [], 2: [] };
  const sizes = { 1: 0, 2: 0 };
  const cut = { 1: false, 2: false };
  let off = 0;
  while (off + 8 <= raw.length) {
    const kind = raw[off] === 2 ? 2 : 1;
    const len = raw.readUInt32BE(off + 4);
    const payload = raw.subarray(off + 8, Math.min(off + 8 + len, raw.length));
    if (payload.length < len) cut[kind] = true;
    const room = limit - sizes[kind];
    if (room > 0) {
      const keep = payload.subarray(0, room);
      parts[kind].push(keep);
      sizes[kind] += keep.length;
    }
    if (payload.length > room) cut[kind] = true;
    off += 8 + len;
  }
  const text = (k: 1 | 2) =>
    Buffer.concat(parts[k]).toString('utf8') + (cut[k] ? `\n(vkit: output cut at ${limit} bytes)\n` : '');
  return { stdout: text(1), stderr: text(2) };
}

function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number })?.statusCode;
}

function engineMessage(error: unknown): string {
  const e = error as { json?: { message?: string; cause?: string }; message?: string; statusCode?: number };
  const detail = e?.json?.message ?? e?.json?.cause ?? e?.message ?? String(error);
  return e?.statusCode ? `${detail} (HTTP ${e.statusCode})` : detail;
}

/* ------------------------------------------------------------------ tool-tree cache */

/** Version 2: digests count the image's environment (entries of version 1 are hashed again). */
const CACHE_SCHEMA = 'vkit.tool-tree-cache/2';

function cachePath(dir: string, imageId: string): string {
  return join(dir, `${hexOf(imageId as `sha256:${string}`)}.json`);
}

function readCache(dir: string, imageId: string, paths: string[]): ToolTree | undefined {
  try {
    const doc = JSON.parse(readFileSync(cachePath(dir, imageId), 'utf8')) as {
      schema?: string;
      image?: string;
      trees?: Record<string, ToolTree>;
    };
    if (doc.image !== imageId || doc.schema !== CACHE_SCHEMA) return undefined;
    const tree = doc.trees?.[jsonId(paths)];
    if (!tree || !isSha256Id(tree.digest) || !Number.isInteger(tree.entries)) return undefined;
    return tree;
  } catch {
    return undefined; // missing or unreadable: recompute
  }
}

function writeCache(dir: string, imageId: string, paths: string[], tree: ToolTree): void {
  try {
    mkdirSync(dir, { recursive: true });
    let trees: Record<string, ToolTree> = {};
    try {
      const doc = JSON.parse(readFileSync(cachePath(dir, imageId), 'utf8')) as {
        schema?: string;
        image?: string;
        trees?: Record<string, ToolTree>;
      };
      if (doc.image === imageId && doc.schema === CACHE_SCHEMA && doc.trees) trees = doc.trees;
    } catch {
      // a fresh file
    }
    trees[jsonId(paths)] = tree;
    const tmp = `${cachePath(dir, imageId)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, JSON.stringify({ schema: CACHE_SCHEMA, image: imageId, trees }, null, 1));
    renameSync(tmp, cachePath(dir, imageId));
  } catch {
    // The cache only saves time; a read-only home must not fail a check.
  }
}

/** The exit code the container's recorded state confirms, or undefined (gone, still running, OOM-killed, or disagreeing). */
async function confirmedExit(container: Docker.Container, status: number | null): Promise<number | undefined> {
  if (status === null) return undefined;
  try {
    const state = (await container.inspect()).State;
    if (!state || !hasEnded(state) || state.OOMKilled || state.ExitCode !== status) return undefined;
    return status;
  } catch {
    return undefined;
  }
}
