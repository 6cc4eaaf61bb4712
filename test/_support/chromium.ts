/**
 * Debian's headless Chromium, driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
 * the browser reads NUL-terminated JSON messages on fd 3 and writes them on fd 4). Enough of a client
 * to open one local page with no network, collect its console errors and exceptions, evaluate an
 * expression and take a screenshot. A loud skip naming `apt-get install chromium` when it is
 * missing; a failure instead under VKIT_REQUIRE_SYSTEM=1.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';

const CHROMIUM = 'chromium';

const present = () => spawnSync(CHROMIUM, ['--version'], { stdio: 'ignore' }).status === 0;

export function chromiumSkip(): { skip: string | false } {
  if (present() || process.env.VKIT_REQUIRE_SYSTEM === '1') return { skip: false };
  const reason =
    'chromium is not installed: run `apt-get install chromium` or `npm run setup:system` (VKIT_REQUIRE_SYSTEM=1 turns this skip into a failure)';
  process.stderr.write(`SKIP headless Chromium tests: ${reason}\n`);
  return { skip: reason };
}

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, any>;
  result?: Record<string, any>;
  error?: { message: string };
  sessionId?: string;
}

export interface Page {
  /** What the page reported: console errors, uncaught exceptions, error log entries. */
  errors: string[];
  /** The value of `expression` in the page (by value). */
  evaluate(expression: string): Promise<unknown>;
  /** A PNG of the viewport. */
  screenshot(): Promise<Buffer>;
  close(): Promise<void>;
}

/** A browser session on one page: fd 3 carries commands in, fd 4 answers and events out. */
class Session {
  private next = 1;
  private pending = new Map<number, { resolve: (m: Message) => void; reject: (e: Error) => void }>();
  private listeners: ((m: Message) => void)[] = [];
  private buffered = Buffer.alloc(0);
  sessionId: string | undefined;

  constructor(
    private input: Writable,
    output: Readable,
  ) {
    output.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      for (let end = this.buffered.indexOf(0); end !== -1; end = this.buffered.indexOf(0)) {
        const message = JSON.parse(this.buffered.subarray(0, end).toString('utf8')) as Message;
        this.buffered = this.buffered.subarray(end + 1);
        this.dispatch(message);
      }
    });
  }

  private dispatch(m: Message): void {
    const waiting = m.id === undefined ? undefined : this.pending.get(m.id);
    if (waiting) {
      this.pending.delete(m.id!);
      if (m.error) waiting.reject(new Error(`DevTools: ${m.error.message}`));
      else waiting.resolve(m);
      return;
    }
    for (const listen of this.listeners) listen(m);
  }

  /** Sends one command (to the attached page unless `browser`) and waits for its answer. */
  send(method: string, params: object = {}, browser = false): Promise<Record<string, any>> {
    const id = this.next++;
    const message = { id, method, params, ...(browser || !this.sessionId ? {} : { sessionId: this.sessionId }) };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: (m) => resolve(m.result ?? {}), reject });
      this.input.write(`${JSON.stringify(message)}\0`);
    });
  }

  on(listen: (m: Message) => void): void {
    this.listeners.push(listen);
  }

  /** Resolves on the first event named `method` for the attached page. */
  once(method: string): Promise<Message> {
    return new Promise((resolve) =>
      this.on((m) => m.method === method && m.sessionId === this.sessionId && resolve(m)),
    );
  }

  failAll(error: Error): void {
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
  }
}

function errorsOf(session: Session, errors: string[]): void {
  session.on((m) => {
    const p = m.params ?? {};
    if (m.method === 'Runtime.consoleAPICalled' && (p.type === 'error' || p.type === 'assert'))
      errors.push(`console.${p.type}: ${JSON.stringify(p.args)}`);
    if (m.method === 'Runtime.exceptionThrown') errors.push(`exception: ${JSON.stringify(p.exceptionDetails)}`);
    if (m.method === 'Log.entryAdded' && p.entry?.level === 'error')
      errors.push(`log: ${p.entry.text} ${p.entry.url ?? ''}`);
  });
}

/** Opens `file` in a fresh headless Chromium (its own profile, no network) at width x height. */
export async function openPage(file: string, width = 1280, height = 900): Promise<Page> {
  // Reached without chromium only under VKIT_REQUIRE_SYSTEM=1: a failure that says what to install.
  if (!present()) throw new Error('Expected chromium on PATH (VKIT_REQUIRE_SYSTEM=1): run `apt-get install chromium`');
  const profile = mkdtempSync(join(tmpdir(), 'vkit-chromium-'));
  const child: ChildProcess = spawn(
    CHROMIUM,
    [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-extensions',
      '--disable-background-networking',
      '--disable-sync',
      '--proxy-server=127.0.0.1:9', // nothing on the page may reach a network; a request would fail loudly
      `--user-data-dir=${profile}`,
      `--window-size=${width},${height}`,
      '--remote-debugging-pipe',
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const session = new Session(child.stdio[3] as Writable, child.stdio[4] as Readable);
  child.on('exit', (code) => session.failAll(new Error(`chromium exited (${code}) before answering:\n${stderr}`)));
  const errors: string[] = [];
  const close = async () => {
    if (child.exitCode === null) {
      await session.send('Browser.close', {}, true).catch(() => {});
      await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(null)));
    }
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    const { targetInfos } = await session.send('Target.getTargets', {}, true);
    const target = (targetInfos as { targetId: string; type: string }[]).find((t) => t.type === 'page');
    if (!target) throw new Error('chromium opened no page');
    session.sessionId = (
      await session.send('Target.attachToTarget', { targetId: target.targetId, flatten: true }, true)
    ).sessionId;
    errorsOf(session, errors);
    for (const domain of ['Page', 'Runtime', 'Log']) await session.send(`${domain}.enable`);
    await session.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
    const loaded = session.once('Page.loadEventFired');
    const nav = await session.send('Page.navigate', { url: pathToFileURL(file).href });
    if (nav.errorText) throw new Error(`navigation failed: ${nav.errorText}`);
    await loaded;
  } catch (error) {
    await close();
    throw error;
  }
  return {
    errors,
    async evaluate(expression) {
      const r = await session.send('Runtime.evaluate', { expression, returnByValue: true });
      if (r.exceptionDetails) throw new Error(`evaluate ${expression}: ${JSON.stringify(r.exceptionDetails)}`);
      return r.result?.value;
    },
    async screenshot() {
      return Buffer.from((await session.send('Page.captureScreenshot', { format: 'png' })).data as string, 'base64');
    },
    close,
  };
}
